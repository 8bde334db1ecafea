package crdgen

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// override carries what upstream KubeVirt declares in its CRD generator
// rather than in Go markers.
type override struct {
	scope      apiextensionsv1.ResourceScope
	shortNames []string
	categories []string
	status     bool
	columns    []apiextensionsv1.CustomResourceColumnDefinition
	// storage names the stored version of a kind served in several
	// versions; empty stores the only one.
	storage string
	// scale adds the scale subresource on upstream's replica paths.
	scale bool
	// deprecated are older versions upstream still serves with the
	// schema of the Go type's version, listed after it.
	deprecated []apiextensionsv1.CustomResourceDefinitionVersion
	// deprecation, when set, deprecates the Go type's version too, with
	// this warning for the API server to return.
	deprecation *string
}

func (o override) apply(c *apiextensionsv1.CustomResourceDefinition) {
	c.Spec.Scope = o.scope
	c.Spec.Names.ShortNames = o.shortNames
	c.Spec.Names.Categories = o.categories
	for i := range c.Spec.Versions {
		v := &c.Spec.Versions[i]
		v.Served = true
		v.Storage = o.storage == "" || v.Name == o.storage
		if o.status || o.scale {
			v.Subresources = o.subresources()
		}
		v.AdditionalPrinterColumns = o.columns
		v.Deprecated, v.DeprecationWarning = o.deprecation != nil, o.deprecation
	}
	o.addDeprecated(c)
}

// addDeprecated serves each deprecated version as a copy of the generated
// one: the schemas are the same, so no conversion is needed.
func (o override) addDeprecated(c *apiextensionsv1.CustomResourceDefinition) {
	if len(o.deprecated) == 0 {
		return
	}
	generated := c.Spec.Versions[0]
	for _, d := range o.deprecated {
		v := *generated.DeepCopy()
		v.Name, v.Served, v.Storage = d.Name, d.Served, false
		v.Deprecated, v.DeprecationWarning = d.Deprecated, d.DeprecationWarning
		c.Spec.Versions = append(c.Spec.Versions, v)
	}
}

func (o override) subresources() *apiextensionsv1.CustomResourceSubresources {
	sub := &apiextensionsv1.CustomResourceSubresources{}
	if o.status {
		sub.Status = &apiextensionsv1.CustomResourceSubresourceStatus{}
	}
	if o.scale {
		selector := ".status.labelSelector"
		sub.Scale = &apiextensionsv1.CustomResourceSubresourceScale{
			SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &selector,
		}
	}
	return sub
}

func col(name, typ, path string) apiextensionsv1.CustomResourceColumnDefinition {
	return apiextensionsv1.CustomResourceColumnDefinition{Name: name, Type: typ, JSONPath: path}
}

var age = col("Age", "date", ".metadata.creationTimestamp")

func withDescription(c apiextensionsv1.CustomResourceColumnDefinition, d string) apiextensionsv1.CustomResourceColumnDefinition {
	c.Description = d
	return c
}

const (
	kubevirtGroup     = "kubevirt.io"
	instancetypeGroup = "instancetype.kubevirt.io"
	poolGroup         = "pool.kubevirt.io"
	migrationsGroup   = "migrations.kubevirt.io"
	ns                = apiextensionsv1.NamespaceScoped
	cluster           = apiextensionsv1.ClusterScoped
)

var allCategory = []string{"all"}

// v1alpha3 is served, deprecated, beside v1 for the kubevirt.io kinds
// whose upstream CRD lists it.
var v1alpha3 = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha3", Served: true, Deprecated: true,
	DeprecationWarning: ptr.To("kubevirt.io/v1alpha3 is now deprecated and will be removed in a future release.")}}

// overrides holds the upstream kinds without kubebuilder resource markers.
var overrides = map[schema.GroupKind]override{
	{Group: kubevirtGroup, Kind: "KubeVirt"}: {scope: ns, shortNames: []string{"kv", "kvs"}, categories: allCategory, status: true,
		columns: []apiextensionsv1.CustomResourceColumnDefinition{age, col("Phase", "string", ".status.phase")}},
	{Group: kubevirtGroup, Kind: "VirtualMachine"}: {scope: ns, shortNames: []string{"vm", "vms"}, categories: allCategory, status: true,
		columns: []apiextensionsv1.CustomResourceColumnDefinition{age, col("Status", "string", ".status.printableStatus"),
			col("Ready", "string", ".status.conditions[?(@.type=='Ready')].status")}},
	{Group: kubevirtGroup, Kind: "VirtualMachineInstance"}: {scope: ns, shortNames: []string{"vmi", "vmis"}, categories: allCategory, status: true,
		columns: []apiextensionsv1.CustomResourceColumnDefinition{age, col("Phase", "string", ".status.phase"),
			col("IP", "string", ".status.interfaces[0].ipAddress"), col("NodeName", "string", ".status.nodeName"),
			col("Ready", "string", ".status.conditions[?(@.type=='Ready')].status"),
			col("Live-Migratable", "string", ".status.conditions[?(@.type=='LiveMigratable')].status")}},
	// Upstream's VMIM columns have no Age.
	{Group: kubevirtGroup, Kind: "VirtualMachineInstanceMigration"}: {scope: ns, shortNames: []string{"vmim", "vmims"}, categories: allCategory,
		status: true, deprecated: v1alpha3,
		columns: []apiextensionsv1.CustomResourceColumnDefinition{
			withDescription(col("Phase", "string", ".status.phase"), "The current phase of VM instance migration"),
			withDescription(col("VMI", "string", ".spec.vmiName"), "The name of the VMI to perform the migration on")}},
	{Group: migrationsGroup, Kind: "MigrationPolicy"}: {scope: cluster, status: true},
	{Group: kubevirtGroup, Kind: "VirtualMachineInstanceReplicaSet"}: {scope: ns, shortNames: []string{"vmirs", "vmirss"}, categories: allCategory, status: true,
		scale: true, deprecated: v1alpha3,
		columns: []apiextensionsv1.CustomResourceColumnDefinition{
			withDescription(col("Desired", "integer", ".spec.replicas"), "Number of desired VirtualMachineInstances"),
			withDescription(col("Current", "integer", ".status.replicas"), "Number of managed and not final or deleted VirtualMachineInstances"),
			withDescription(col("Ready", "integer", ".status.readyReplicas"), "Number of managed VirtualMachineInstances which are ready to receive traffic"),
			age}},
	{Group: poolGroup, Kind: "VirtualMachinePool"}: {scope: ns, shortNames: []string{"vmpool", "vmpools"}, categories: allCategory,
		status: true, scale: true, storage: "v1beta1",
		columns: []apiextensionsv1.CustomResourceColumnDefinition{
			withDescription(col("Desired", "integer", ".spec.replicas"), "Number of desired VirtualMachines"),
			withDescription(col("Current", "integer", ".status.replicas"), "Number of managed and not final or deleted VirtualMachines"),
			withDescription(col("Ready", "integer", ".status.readyReplicas"), "Number of managed VirtualMachines which are ready to receive traffic"),
			age}},
	// Presets are deprecated in every version upstream serves; v1 stays
	// the stored one (upstream stores v1alpha3, of the same schema).
	{Group: kubevirtGroup, Kind: "VirtualMachineInstancePreset"}: {scope: ns, shortNames: []string{"vmipreset", "vmipresets"}, categories: allCategory,
		deprecation: ptr.To("kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2."),
		deprecated: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha3", Served: true, Deprecated: true,
			DeprecationWarning: ptr.To("kubevirt.io/v1alpha3 VirtualMachineInstancePresets is now deprecated and will be removed in v2.")}}},
	{Group: instancetypeGroup, Kind: "VirtualMachineInstancetype"}: {scope: ns,
		shortNames: []string{"vminstancetype", "vminstancetypes", "vmf", "vmfs"}, categories: allCategory},
	{Group: instancetypeGroup, Kind: "VirtualMachineClusterInstancetype"}: {scope: cluster,
		shortNames: []string{"vmclusterinstancetype", "vmclusterinstancetypes", "vmcf", "vmcfs"}},
	{Group: instancetypeGroup, Kind: "VirtualMachinePreference"}: {scope: ns,
		shortNames: []string{"vmpref", "vmprefs", "vmp", "vmps"}, categories: allCategory},
	{Group: instancetypeGroup, Kind: "VirtualMachineClusterPreference"}: {scope: cluster,
		shortNames: []string{"vmcp", "vmcps"}},
	// OpenShift serves templates from its own API server; here they are a
	// CRD of the same group, version and schema, for the common templates.
	{Group: "template.openshift.io", Kind: "Template"}: {scope: ns},
}

// ownMarkerKinds carry complete kubebuilder markers in their Go types.
var ownMarkerKinds = []schema.GroupKind{
	{Group: "hco.kubevirt.io", Kind: "HyperConverged"},
	{Group: "networkaddonsoperator.network.kubevirt.io", Kind: "NetworkAddonsConfig"},
	{Group: "hostpathprovisioner.kubevirt.io", Kind: "HostPathProvisioner"},
	{Group: "cdi.kubevirt.io", Kind: "CDI"},
	{Group: "cdi.kubevirt.io", Kind: "CDIConfig"},
	{Group: "cdi.kubevirt.io", Kind: "DataVolume"},
	{Group: "cdi.kubevirt.io", Kind: "DataSource"},
	{Group: "cdi.kubevirt.io", Kind: "DataImportCron"},
	{Group: "cdi.kubevirt.io", Kind: "StorageProfile"},
	{Group: "cdi.kubevirt.io", Kind: "VolumeImportSource"},
	{Group: "ssp.kubevirt.io", Kind: "SSP"},
}
