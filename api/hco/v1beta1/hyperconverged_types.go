package v1beta1

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HyperConvergedName is the only HyperConverged name the operator acts on.
// The resource is a per-cluster singleton, and a fixed name lets every
// component and tool find it without a list call.
const HyperConvergedName = "kubevirt-hyperconverged"

// Condition types written to status.conditions. They use the OpenShift
// ClusterOperator vocabulary because OLM and the console look them up by
// these exact names.
const (
	// ConditionAvailable is True once every operand is deployed and serving.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while operands are still being rolled out
	// or upgraded.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when an operand runs but not fully, so
	// alerting can fire without declaring the stack unavailable.
	ConditionDegraded = "Degraded"
	// ConditionReconcileComplete reports whether the last reconcile pass ran
	// to the end; it separates "still working" from "stuck".
	ConditionReconcileComplete = "ReconcileComplete"
	// ConditionUpgradeable tells OLM whether it may move to a newer bundle.
	ConditionUpgradeable = "Upgradeable"
	// ConditionTaintedConfiguration is set only while a debug override
	// annotation is in effect, so support can spot unsupported setups.
	ConditionTaintedConfiguration = "TaintedConfiguration"
)

// HyperConvergedUninstallStrategy chooses what deleting the CR does to
// existing workloads.
type HyperConvergedUninstallStrategy string

const (
	// HyperConvergedUninstallStrategyRemoveWorkloads cascades the delete to
	// VMs and DataVolumes.
	HyperConvergedUninstallStrategyRemoveWorkloads HyperConvergedUninstallStrategy = "RemoveWorkloads"
	// HyperConvergedUninstallStrategyBlockUninstallIfWorkloadsExist refuses
	// the delete while workloads remain; it is the default because an
	// accidental delete must not destroy data.
	HyperConvergedUninstallStrategyBlockUninstallIfWorkloadsExist HyperConvergedUninstallStrategy = "BlockUninstallIfWorkloadsExist"
)

// HyperConvergedTuningPolicy selects how KubeVirt client rate limits are set.
type HyperConvergedTuningPolicy string

const (
	// HyperConvergedAnnotationTuningPolicy reads QPS and burst from the
	// hco.kubevirt.io/tuningPolicy annotation, for clusters that need
	// hand-tuned values.
	HyperConvergedAnnotationTuningPolicy HyperConvergedTuningPolicy = "annotation"
	// HyperConvergedHighBurstProfile applies a canned high-throughput
	// profile. Upstream deprecated it, but manifests may still carry it.
	HyperConvergedHighBurstProfile HyperConvergedTuningPolicy = "highBurst"
)

// HyperConvergedSpec is the single place an administrator configures the
// whole virtualization stack; the operator fans it out to the operand CRs.
// +k8s:openapi-gen=true
type HyperConvergedSpec struct {
	// Deprecated: LocalStorageClassName is ignored; it survives only so old
	// manifests still validate.
	// +optional
	LocalStorageClassName string `json:"localStorageClassName,omitempty"`

	// TuningPolicy picks how KubeVirt rate limits are derived. When unset,
	// KubeVirt keeps its built-in defaults.
	// +kubebuilder:validation:Enum=annotation;highBurst
	// +optional
	TuningPolicy HyperConvergedTuningPolicy `json:"tuningPolicy,omitempty"`

	// Infra places control-plane style components that need not run beside
	// VMs.
	// +optional
	Infra HyperConvergedConfig `json:"infra,omitempty"`

	// Workloads places components that must run on every node that hosts VMs.
	// Changing it is only safe while no workloads exist.
	// +optional
	Workloads HyperConvergedConfig `json:"workloads,omitempty"`

	// FeatureGates turns not-yet-default features on or off.
	// +kubebuilder:default={"downwardMetrics": false, "deployKubeSecondaryDNS": false, "disableMDevConfiguration": false, "persistentReservation": false, "enableMultiArchBootImageImport": false, "decentralizedLiveMigration": true, "declarativeHotplugVolumes": false, "videoConfig": true, "objectGraph": false, "incrementalBackup": false, "containerPathVolumes": false}
	// +optional
	FeatureGates HyperConvergedFeatureGates `json:"featureGates,omitempty"`

	// LiveMigrationConfig caps and times out migrations so they cannot swamp
	// the cluster network or stall node drains forever.
	// +kubebuilder:default={"completionTimeoutPerGiB": 150, "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150, "allowAutoConverge": false, "allowPostCopy": false}
	// +optional
	LiveMigrationConfig LiveMigrationConfigurations `json:"liveMigrationConfig,omitempty"`

	// PermittedHostDevices lists host devices VMs may claim for passthrough.
	// +optional
	PermittedHostDevices *PermittedHostDevices `json:"permittedHostDevices,omitempty"`

	// MediatedDevicesConfiguration lists the mdev types to create on nodes.
	// +optional
	MediatedDevicesConfiguration *MediatedDevicesConfiguration `json:"mediatedDevicesConfiguration,omitempty"`

	// CertConfig sets lifetimes of the internal self-signed certificates.
	// +kubebuilder:default={"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"}, "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}}
	// +optional
	CertConfig HyperConvergedCertConfig `json:"certConfig,omitempty"`

	// ResourceRequirements tunes resources of operand workloads.
	// +kubebuilder:default={"vmiCPUAllocationRatio": 10}
	// +kubebuilder:validation:XValidation:rule="!has(self.vmiCPUAllocationRatio) || self.vmiCPUAllocationRatio > 0",message="vmiCPUAllocationRatio must be greater than 0"
	// +optional
	ResourceRequirements *OperandResourceRequirements `json:"resourceRequirements,omitempty"`

	// ScratchSpaceStorageClass overrides where CDI puts scratch space. When
	// unset, CDI falls back to the default class, then to the DataVolume's.
	// +optional
	ScratchSpaceStorageClass *string `json:"scratchSpaceStorageClass,omitempty"`

	// Deprecated: VddkInitImage is superseded by the Migration Toolkit for
	// Virtualization and kept for manifest compatibility.
	// +optional
	VddkInitImage *string `json:"vddkInitImage,omitempty"`

	// DefaultCPUModel is applied to VMIs that name no CPU model; without it
	// KubeVirt uses host-model.
	// +optional
	DefaultCPUModel *string `json:"defaultCPUModel,omitempty"`

	// DefaultRuntimeClass is applied to VMI pods that name no RuntimeClass;
	// running VMIs pick a change up only after restart or migration.
	// +optional
	DefaultRuntimeClass *string `json:"defaultRuntimeClass,omitempty"`

	// ObsoleteCPUs keeps VMs off CPU models the admin considers too old.
	// +optional
	ObsoleteCPUs *HyperConvergedObsoleteCPUs `json:"obsoleteCPUs,omitempty"`

	// CommonTemplatesNamespace moves the common VM templates out of the
	// default "openshift" namespace.
	// +optional
	CommonTemplatesNamespace *string `json:"commonTemplatesNamespace,omitempty"`

	// StorageImport configures container-disk imports.
	// +optional
	StorageImport *StorageImportConfig `json:"storageImport,omitempty"`

	// WorkloadUpdateStrategy decides how running VMs are moved onto new
	// virt-launcher versions after an upgrade.
	// +kubebuilder:default={"workloadUpdateMethods": {"LiveMigrate"}, "batchEvictionSize": 10, "batchEvictionInterval": "1m0s"}
	WorkloadUpdateStrategy HyperConvergedWorkloadUpdateStrategy `json:"workloadUpdateStrategy,omitempty"`

	// DataImportCronTemplates adds or overrides golden-image import crons.
	// +listType=atomic
	// +optional
	DataImportCronTemplates []DataImportCronTemplate `json:"dataImportCronTemplates,omitempty"`

	// FilesystemOverhead reserves part of Filesystem-mode PVCs for file
	// system metadata; CDI assumes 0.055 when unset.
	// +optional
	FilesystemOverhead *FilesystemOverhead `json:"filesystemOverhead,omitempty"`

	// UninstallStrategy decides whether deleting the CR may cascade to
	// workloads.
	// +kubebuilder:default=BlockUninstallIfWorkloadsExist
	// +kubebuilder:validation:Enum=RemoveWorkloads;BlockUninstallIfWorkloadsExist
	// +optional
	UninstallStrategy HyperConvergedUninstallStrategy `json:"uninstallStrategy,omitempty"`

	// LogVerbosityConfig raises component log levels for debugging.
	// +optional
	LogVerbosityConfig *LogVerbosityConfiguration `json:"logVerbosityConfig,omitempty"`

	// TLSSecurityProfile overrides the cluster-wide TLS profile for all
	// operands; when unset the APIServer profile (or Intermediate) applies.
	// +optional
	TLSSecurityProfile *ocpconfigv1.TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`

	// Deprecated: TektonPipelinesNamespace is ignored.
	// +kubebuilder:deprecatedversion:warning="tektonPipelinesNamespace field is ignored"
	// +optional
	TektonPipelinesNamespace *string `json:"tektonPipelinesNamespace,omitempty"`

	// Deprecated: TektonTasksNamespace is ignored.
	// +kubebuilder:deprecatedversion:warning="tektonTasksNamespace field is ignored"
	// +optional
	TektonTasksNamespace *string `json:"tektonTasksNamespace,omitempty"`

	// KubeSecondaryDNSNameServerIP pins the name server IP that
	// KubeSecondaryDNS advertises.
	// +optional
	KubeSecondaryDNSNameServerIP *string `json:"kubeSecondaryDNSNameServerIP,omitempty"`

	// KubeMacPoolConfiguration narrows the MAC range kubemacpool allocates
	// from, to avoid clashes with other clusters on the same L2.
	// +optional
	KubeMacPoolConfiguration *KubeMacPoolConfig `json:"kubeMacPoolConfiguration,omitempty"`

	// EvictionStrategy is the cluster-wide answer to a node drain; a VMI's
	// own strategy wins. The operator picks LiveMigrate on multi-node and
	// None on single-node clusters when this is unset.
	// +kubebuilder:validation:Enum=None;LiveMigrate;LiveMigrateIfPossible;External
	// +optional
	EvictionStrategy *EvictionStrategy `json:"evictionStrategy,omitempty"`

	// VMStateStorageClass backs persistent VM state such as vTPM.
	// +optional
	VMStateStorageClass *string `json:"vmStateStorageClass,omitempty"`

	// VirtualMachineOptions holds cluster-wide VM behaviour toggles.
	// +kubebuilder:default={"disableFreePageReporting": false, "disableSerialConsoleLog": false}
	// +optional
	VirtualMachineOptions *VirtualMachineOptions `json:"virtualMachineOptions,omitempty"`

	// CommonBootImageNamespace hides the common boot images in another
	// namespace; unset leaves the choice to SSP.
	// +optional
	CommonBootImageNamespace *string `json:"commonBootImageNamespace,omitempty"`

	// KSMConfiguration enables kernel same-page merging on selected nodes.
	// +optional
	KSMConfiguration *KSMConfiguration `json:"ksmConfiguration,omitempty"`

	// NetworkBinding registers network binding plugins by name, for use by
	// VM interfaces.
	// +optional
	NetworkBinding map[string]InterfaceBindingPlugin `json:"networkBinding,omitempty"`

	// ApplicationAwareConfig tunes Application Aware Quota.
	// +optional
	ApplicationAwareConfig *ApplicationAwareConfigurations `json:"applicationAwareConfig,omitempty"`

	// HigherWorkloadDensity trades memory safety margin for VM density.
	// +kubebuilder:default={"memoryOvercommitPercentage": 100}
	// +optional
	HigherWorkloadDensity *HigherWorkloadDensityConfiguration `json:"higherWorkloadDensity,omitempty"`

	// EnableCommonBootImageImport opts in to the built-in golden images;
	// custom ones in DataImportCronTemplates are unaffected.
	// +kubebuilder:default=true
	// +optional
	EnableCommonBootImageImport *bool `json:"enableCommonBootImageImport,omitempty"`

	// InstancetypeConfig controls how VMs reference instance types.
	// +optional
	InstancetypeConfig *InstancetypeConfiguration `json:"instancetypeConfig,omitempty"`

	// CommonInstancetypesDeployment toggles the bundled instance types. The
	// capitalised JSON name is an upstream quirk kept for compatibility.
	// +optional
	CommonInstancetypesDeployment *CommonInstancetypesDeployment `json:"CommonInstancetypesDeployment,omitempty"`

	// DeployVMConsoleProxy has SSP deploy the VM console proxy.
	// +kubebuilder:default=false
	// +optional
	DeployVMConsoleProxy *bool `json:"deployVmConsoleProxy,omitempty"`

	// EnableApplicationAwareQuota deploys Application Aware Quota.
	// +kubebuilder:default=false
	// +optional
	EnableApplicationAwareQuota *bool `json:"enableApplicationAwareQuota,omitempty"`

	// LiveUpdateConfiguration bounds CPU and memory hotplug.
	// +optional
	LiveUpdateConfiguration *LiveUpdateConfiguration `json:"liveUpdateConfiguration,omitempty"`

	// Hypervisors selects the hypervisor; KubeVirt assumes KVM when empty.
	// Only one entry is accepted today.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1
	// +optional
	Hypervisors []HypervisorConfiguration `json:"hypervisors,omitempty"`

	// RoleAggregationStrategy decides whether KubeVirt roles aggregate into
	// the default admin/edit/view roles; Manual suits clusters with curated
	// RBAC.
	// +kubebuilder:validation:Enum=AggregateToDefault;Manual
	// +optional
	RoleAggregationStrategy *RoleAggregationStrategy `json:"roleAggregationStrategy,omitempty"`
}

// HyperConvergedStatus is what the operator observed while fanning the spec
// out to its operands.
// +k8s:openapi-gen=true
type HyperConvergedStatus struct {
	// Conditions summarise the health of the whole stack.
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// RelatedObjects lists objects the operator created and has seen in the
	// cluster, so must-gather and the console can follow them.
	// +listType=atomic
	// +optional
	RelatedObjects []corev1.ObjectReference `json:"relatedObjects,omitempty"`

	// Versions reports component versions; the entry named "operator" is
	// the operator itself, as ClusterOperator consumers expect.
	// +listType=atomic
	// +optional
	Versions []Version `json:"versions,omitempty"`

	// ObservedGeneration is the spec generation the status reflects; a lower
	// value than metadata.generation means the status is stale.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// DataImportSchedule is the cron expression picked once for the built-in
	// golden images and persisted here so restarts do not reshuffle it.
	// +optional
	DataImportSchedule string `json:"dataImportSchedule,omitempty"`

	// DataImportCronTemplates is the effective list handed to SSP, common and
	// custom alike, after the operator's own edits.
	// +optional
	DataImportCronTemplates []DataImportCronTemplateStatus `json:"dataImportCronTemplates,omitempty"`

	// SystemHealthStatus is the conditions folded into one word for
	// dashboards and metrics.
	// +optional
	SystemHealthStatus string `json:"systemHealthStatus,omitempty"`

	// InfrastructureHighlyAvailable is false on single-worker clusters,
	// where several defaults (replicas, eviction) must differ.
	// +optional
	InfrastructureHighlyAvailable *bool `json:"infrastructureHighlyAvailable,omitempty"`

	// NodeInfo records node architectures, which drive multi-arch images.
	// +optional
	NodeInfo NodeInfoStatus `json:"nodeInfo,omitempty"`
}

// Version pairs a component name with the version deployed.
type Version struct {
	// Name identifies the component.
	Name string `json:"name,omitempty"`
	// Version is the deployed version string.
	Version string `json:"version,omitempty"`
}

// NodeInfoStatus records the CPU architectures present, so golden images can
// be imported for each one.
type NodeInfoStatus struct {
	// WorkloadsArchitectures lists distinct architectures of workload nodes.
	// +optional
	WorkloadsArchitectures []string `json:"workloadsArchitectures,omitempty"`
	// ControlPlaneArchitectures lists distinct architectures of control-plane
	// nodes.
	// +optional
	ControlPlaneArchitectures []string `json:"controlPlaneArchitectures,omitempty"`
}

// HyperConverged is the cluster's single entry point for configuring
// virtualization.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={all},shortName={hco,hcos}
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type HyperConverged struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is defaulted as a whole so an empty CR still gets every upstream
	// default.
	// +kubebuilder:default={"certConfig": {"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"}, "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}},"featureGates": {"downwardMetrics": false, "deployKubeSecondaryDNS": false, "disableMDevConfiguration": false, "persistentReservation": false, "enableMultiArchBootImageImport": false, "decentralizedLiveMigration": true, "declarativeHotplugVolumes": false, "videoConfig": true, "objectGraph": false, "incrementalBackup": false, "containerPathVolumes": false}, "liveMigrationConfig": {"completionTimeoutPerGiB": 150, "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150, "allowAutoConverge": false, "allowPostCopy": false}, "resourceRequirements": {"vmiCPUAllocationRatio": 10}, "uninstallStrategy": "BlockUninstallIfWorkloadsExist", "virtualMachineOptions": {"disableFreePageReporting": false, "disableSerialConsoleLog": false}, "enableApplicationAwareQuota": false, "enableCommonBootImageImport": true, "deployVmConsoleProxy": false}
	// +optional
	Spec HyperConvergedSpec `json:"spec,omitempty"`
	// Status is written only by the operator.
	// +optional
	Status HyperConvergedStatus `json:"status,omitempty"`
}

// HyperConvergedList is the list form of HyperConverged.
// +kubebuilder:object:root=true
type HyperConvergedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the HyperConverged objects returned by the list call.
	Items []HyperConverged `json:"items"`
}
