package v1beta1

// HyperConvergedFeatureGates switches features that are not on by default
// yet. Every gate is a *bool so "unset" stays distinguishable from "false"
// and the CRD default can fill it in.
//
// Gates marked Deprecated are ignored by the operator. They remain only so
// that manifests written for older releases still decode and validate.
// +k8s:openapi-gen=true
type HyperConvergedFeatureGates struct {
	// DownwardMetrics exposes a limited set of host metrics to guests.
	// +kubebuilder:default=false
	// +optional
	DownwardMetrics *bool `json:"downwardMetrics,omitempty"`

	// DeployKubeSecondaryDNS has the network addons operator deploy
	// KubeSecondaryDNS, giving secondary-network VMs DNS names.
	// +kubebuilder:default=false
	// +optional
	DeployKubeSecondaryDNS *bool `json:"deployKubeSecondaryDNS,omitempty"`

	// DisableMDevConfiguration stops KubeVirt from creating and removing
	// mediated devices, for clusters where another agent owns them.
	// +kubebuilder:default=false
	// +optional
	DisableMDevConfiguration *bool `json:"disableMDevConfiguration,omitempty"`

	// PersistentReservation deploys the qemu-pr-helper next to virt-handler
	// so VMs can issue SCSI persistent reservations. Toggling it redeploys
	// virt-handler.
	// +kubebuilder:default=false
	// +optional
	PersistentReservation *bool `json:"persistentReservation,omitempty"`

	// AlignCPUs lets KubeVirt add up to two dedicated CPUs so emulator thread
	// isolation lands on an even core count (developer preview).
	// +kubebuilder:default=false
	// +optional
	AlignCPUs *bool `json:"alignCPUs,omitempty"`

	// EnableMultiArchBootImageImport imports golden images for every node
	// architecture on heterogeneous clusters (developer preview).
	// +kubebuilder:default=false
	// +optional
	EnableMultiArchBootImageImport *bool `json:"enableMultiArchBootImageImport,omitempty"`

	// DecentralizedLiveMigration allows live migration between clusters.
	// +kubebuilder:default=true
	// +optional
	DecentralizedLiveMigration *bool `json:"decentralizedLiveMigration,omitempty"`

	// DeclarativeHotplugVolumes switches KubeVirt from the HotplugVolumes gate
	// to DeclarativeHotplugVolumes.
	// +kubebuilder:default=false
	// +optional
	DeclarativeHotplugVolumes *bool `json:"declarativeHotplugVolumes,omitempty"`

	// VideoConfig lets VMs choose their video device type (tech preview).
	// +kubebuilder:default=true
	// +optional
	VideoConfig *bool `json:"videoConfig,omitempty"`

	// ObjectGraph enables the VM/VMI object-graph subresource used for
	// dependency tracking (developer preview).
	// +kubebuilder:default=false
	// +optional
	ObjectGraph *bool `json:"objectGraph,omitempty"`

	// IncrementalBackup enables changed-block-tracking backups; it also turns
	// on KubeVirt's UtilityVolumes gate (tech preview).
	// +kubebuilder:default=false
	// +optional
	IncrementalBackup *bool `json:"incrementalBackup,omitempty"`

	// ContainerPathVolumes lets VMs mount paths of the virt-launcher pod via
	// virtiofs.
	// +kubebuilder:default=false
	// +optional
	ContainerPathVolumes *bool `json:"containerPathVolumes,omitempty"`

	// Deprecated: WithHostPassthroughCPU is ignored; KubeVirt has no such gate.
	// +optional
	WithHostPassthroughCPU *bool `json:"withHostPassthroughCPU,omitempty"`

	// Deprecated: EnableCommonBootImageImport is ignored; use
	// spec.enableCommonBootImageImport.
	// +optional
	EnableCommonBootImageImport *bool `json:"enableCommonBootImageImport,omitempty"`

	// Deprecated: DeployTektonTaskResources is ignored.
	// +optional
	DeployTektonTaskResources *bool `json:"deployTektonTaskResources,omitempty"`

	// Deprecated: DeployVMConsoleProxy is ignored; use
	// spec.deployVmConsoleProxy.
	// +optional
	DeployVMConsoleProxy *bool `json:"deployVmConsoleProxy,omitempty"`

	// Deprecated: DeployKubevirtIpamController is ignored.
	// +optional
	DeployKubevirtIpamController *bool `json:"deployKubevirtIpamController,omitempty"`

	// Deprecated: NonRoot is ignored; virt-launcher is always non-root.
	// +optional
	NonRoot *bool `json:"nonRoot,omitempty"`

	// Deprecated: EnableManagedTenantQuota is ignored.
	// +optional
	EnableManagedTenantQuota *bool `json:"enableManagedTenantQuota,omitempty"`

	// Deprecated: AutoResourceLimits is ignored.
	// +optional
	AutoResourceLimits *bool `json:"autoResourceLimits,omitempty"`

	// Deprecated: EnableApplicationAwareQuota is ignored; use
	// spec.enableApplicationAwareQuota.
	// +optional
	EnableApplicationAwareQuota *bool `json:"enableApplicationAwareQuota,omitempty"`

	// Deprecated: PrimaryUserDefinedNetworkBinding is ignored.
	// +optional
	PrimaryUserDefinedNetworkBinding *bool `json:"primaryUserDefinedNetworkBinding,omitempty"`
}
