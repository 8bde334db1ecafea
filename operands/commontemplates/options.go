package commontemplates

// Release is the kubevirt/common-templates release these templates
// reproduce, as its release tooling stamps it on every template.
const Release = "v0.34.1"

// DefaultNamespace is where SSP installs common templates unless its
// commonTemplates.namespace says otherwise.
const DefaultNamespace = "openshift"

// DefaultDataSourceNamespace is the namespace OpenShift Virtualization's
// boot sources (DataImportCrons and their DataSources) live in.
const DefaultDataSourceNamespace = "openshift-virtualization-os-images"

// KubeVirtDataSourceNamespace is the namespace upstream KubeVirt's own
// bundle defaults DATA_SOURCE_NAMESPACE to.
const KubeVirtDataSourceNamespace = "kubevirt-os-images"

// DefaultTestGuestImage is the container disk holding virtflow's test
// guest: its kernel and initramfs under /boot and its disk under /disk.
const DefaultTestGuestImage = "registry.virtflow.local/virtflow/test-guest:latest"

// Architecture is the only CPU architecture the templates are generated
// for: virtflow's nodes are amd64.
const Architecture = "amd64"

// Options tune the generated templates. The zero value yields what
// OpenShift Virtualization installs.
type Options struct {
	// Version is stamped as the template.kubevirt.io/version label and on
	// the VMs; it defaults to Release. SSP compares installed templates'
	// versions with it.
	Version string
	// Namespace is where the templates are installed; defaults to
	// DefaultNamespace.
	Namespace string
	// DataSourceNamespace is the default of every template's
	// DATA_SOURCE_NAMESPACE parameter; it defaults to
	// DefaultDataSourceNamespace, and follows wherever the platform keeps
	// its boot sources.
	DataSourceNamespace string
	// TestGuestImage is the container disk the test guest's kernel boots
	// from; defaults to DefaultTestGuestImage.
	TestGuestImage string
	// Provider, when set, adds the template.kubevirt.io/provider*
	// annotations the console shows as the template's provider and support
	// level. Upstream sets none.
	Provider *Provider
	// SSPLabels are the labels of the SSP resource installing the
	// templates. As SSP does, when it has labels at all, its
	// app.kubernetes.io/part-of and version are copied onto every template.
	SSPLabels map[string]string
}

// Provider is who ships the templates, as the console shows it.
type Provider struct {
	// Name is the provider's name, e.g. "Red Hat".
	Name string
	// SupportLevel is e.g. "Full" or "Community".
	SupportLevel string
	// URL is the provider's web site.
	URL string
}

// withDefaults fills in every option left empty.
func (o Options) withDefaults() Options {
	if o.Version == "" {
		o.Version = Release
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.DataSourceNamespace == "" {
		o.DataSourceNamespace = DefaultDataSourceNamespace
	}
	if o.TestGuestImage == "" {
		o.TestGuestImage = DefaultTestGuestImage
	}
	return o
}
