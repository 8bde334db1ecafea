package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePlacement steers operand pods onto nodes. It has the same JSON shape as
// the lifecycle SDK's NodePlacement so placement blocks can be copied between
// HyperConverged and the operand CRs verbatim.
type NodePlacement struct {
	// NodeSelector must match node labels for a pod to be scheduled there.
	// +kubebuilder:validation:Optional
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Affinity is applied alongside NodeSelector for constraints a plain
	// label match cannot express.
	// +kubebuilder:validation:Optional
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// Tolerations are added to the operand defaults so pods can land on
	// tainted (for example, dedicated) nodes.
	// +kubebuilder:validation:Optional
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// HyperConvergedConfig wraps per-role pod settings; today only placement.
type HyperConvergedConfig struct {
	// NodePlacement is passed to every operand of the role.
	// +optional
	NodePlacement *NodePlacement `json:"nodePlacement,omitempty"`
}

// CertRotateConfigCA sets the CA lifetime. CA certificates stay in the bundle
// until they expire, so the CA lives longer than the server certificates it
// signs.
// +k8s:openapi-gen=true
type CertRotateConfigCA struct {
	// Duration is the requested lifetime, in Go duration syntax.
	// +kubebuilder:default="48h0m0s"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`

	// RenewBefore is how long before notAfter rotation starts.
	// +kubebuilder:default="24h0m0s"
	// +optional
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// CertRotateConfigServer sets the serving certificate lifetime; these are
// discarded on rotation, so they can be short-lived.
// +k8s:openapi-gen=true
type CertRotateConfigServer struct {
	// Duration is the requested lifetime, in Go duration syntax.
	// +kubebuilder:default="24h0m0s"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`

	// RenewBefore is how long before notAfter rotation starts.
	// +kubebuilder:default="12h0m0s"
	// +optional
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// HyperConvergedCertConfig holds the rotation policy shared by all operands.
// +k8s:openapi-gen=true
type HyperConvergedCertConfig struct {
	// CA configures the signing CA.
	// +kubebuilder:default={"duration": "48h0m0s", "renewBefore": "24h0m0s"}
	// +optional
	CA CertRotateConfigCA `json:"ca,omitempty"`

	// Server configures the leaf serving certificates.
	// +kubebuilder:default={"duration": "24h0m0s", "renewBefore": "12h0m0s"}
	// +optional
	Server CertRotateConfigServer `json:"server,omitempty"`
}

// LiveMigrationConfigurations bounds live migration so it neither saturates
// the network nor blocks drains indefinitely.
// +k8s:openapi-gen=true
type LiveMigrationConfigurations struct {
	// ParallelMigrationsPerCluster caps concurrent migrations cluster-wide.
	// +kubebuilder:default=5
	// +optional
	ParallelMigrationsPerCluster *uint32 `json:"parallelMigrationsPerCluster,omitempty"`

	// ParallelOutboundMigrationsPerNode caps concurrent migrations leaving a
	// single node.
	// +kubebuilder:default=2
	// +optional
	ParallelOutboundMigrationsPerNode *uint32 `json:"parallelOutboundMigrationsPerNode,omitempty"`

	// BandwidthPerMigration limits each migration, as a quantity of bytes
	// per second (for example 2048Mi). It is a string, not a Quantity, to
	// keep the upstream schema.
	// +kubebuilder:validation:Pattern=`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	// +optional
	BandwidthPerMigration *string `json:"bandwidthPerMigration,omitempty"`

	// CompletionTimeoutPerGiB scales the migration deadline with guest size
	// (RAM plus migrated disks), so large busy VMs fail over to another
	// target or post-copy instead of never converging.
	// +kubebuilder:default=150
	// +optional
	CompletionTimeoutPerGiB *int64 `json:"completionTimeoutPerGiB,omitempty"`

	// ProgressTimeout cancels a migration whose memory copy makes no
	// progress for this many seconds.
	// +kubebuilder:default=150
	// +optional
	ProgressTimeout *int64 `json:"progressTimeout,omitempty"`

	// Network names a Multus network dedicated to migration traffic, to keep
	// it off tenant networks.
	// +optional
	Network *string `json:"network,omitempty"`

	// AllowAutoConverge lets the platform throttle a guest to make its
	// migration finish.
	// +kubebuilder:default=false
	// +optional
	AllowAutoConverge *bool `json:"allowAutoConverge,omitempty"`

	// AllowPostCopy falls back to post-copy when pre-copy times out. It makes
	// busy VMs migratable but a failure mid-way can crash the guest.
	// +kubebuilder:default=false
	// +optional
	AllowPostCopy *bool `json:"allowPostCopy,omitempty"`
}

// VirtualMachineOptions holds cluster-wide VM behaviour toggles.
type VirtualMachineOptions struct {
	// DisableFreePageReporting turns off balloon free page reporting, which
	// some latency-sensitive guests dislike.
	// +kubebuilder:default=false
	// +optional
	DisableFreePageReporting *bool `json:"disableFreePageReporting,omitempty"`

	// DisableSerialConsoleLog stops streaming the default serial console to
	// the guest-console-log container; VMs may still override it.
	// +kubebuilder:default=false
	// +optional
	DisableSerialConsoleLog *bool `json:"disableSerialConsoleLog,omitempty"`
}

// OperandResourceRequirements tunes resources requested for operand pods.
// +k8s:openapi-gen=true
type OperandResourceRequirements struct {
	// StorageWorkloads is forwarded to CDI for its importer/cloner pods.
	// +optional
	StorageWorkloads *corev1.ResourceRequirements `json:"storageWorkloads,omitempty"`

	// VmiCPUAllocationRatio is how many vCPUs share one physical CPU thread
	// when computing virt-launcher CPU requests; it does not affect VMIs with
	// dedicated CPUs.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +optional
	VmiCPUAllocationRatio *int `json:"vmiCPUAllocationRatio,omitempty"`

	// AutoCPULimitNamespaceLabelSelector sets a CPU limit equal to the vCPU
	// count on virt-launcher pods in matching namespaces, for namespaces whose
	// quotas require limits.
	// +optional
	AutoCPULimitNamespaceLabelSelector *metav1.LabelSelector `json:"autoCPULimitNamespaceLabelSelector,omitempty"`
}

// HyperConvergedObsoleteCPUs keeps VMs off CPU models considered obsolete.
// +k8s:openapi-gen=true
type HyperConvergedObsoleteCPUs struct {
	// Deprecated: MinCPUModel is ignored.
	// +optional
	MinCPUModel string `json:"minCPUModel,omitempty"`

	// CPUModels is added to the operator's own opinionated list; the node
	// labeller stops advertising these models.
	// +listType=set
	// +optional
	CPUModels []string `json:"cpuModels,omitempty"`
}

// StorageImportConfig configures how CDI imports container disks.
// +k8s:openapi-gen=true
type StorageImportConfig struct {
	// InsecureRegistries may be pulled from without TLS verification, for
	// lab registries.
	// +listType=set
	// +optional
	InsecureRegistries []string `json:"insecureRegistries,omitempty"`
}

// HyperConvergedWorkloadUpdateStrategy decides how running VMs are moved onto
// a new virt-launcher after an upgrade.
// +k8s:openapi-gen=true
type HyperConvergedWorkloadUpdateStrategy struct {
	// WorkloadUpdateMethods are tried least-disruptive first; with both
	// LiveMigrate and Evict, only non-migratable VMs are restarted. An empty
	// list disables automatic updates.
	// +listType=atomic
	// +kubebuilder:default={"LiveMigrate"}
	WorkloadUpdateMethods []string `json:"workloadUpdateMethods"`

	// BatchEvictionSize is how many VMIs may be force-updated per interval.
	// +kubebuilder:default=10
	// +optional
	BatchEvictionSize *int `json:"batchEvictionSize,omitempty"`

	// BatchEvictionInterval is the pause between eviction batches.
	// +kubebuilder:default="1m0s"
	// +optional
	BatchEvictionInterval *metav1.Duration `json:"batchEvictionInterval,omitempty"`
}

// LogVerbosityConfiguration raises component log levels for debugging.
// +k8s:openapi-gen=true
type LogVerbosityConfiguration struct {
	// Kubevirt sets per-component KubeVirt verbosity.
	// +optional
	Kubevirt *LogVerbosity `json:"kubevirt,omitempty"`

	// CDI sets the verbosity of all CDI components.
	// +optional
	CDI *int32 `json:"cdi,omitempty"`
}

// ApplicationAwareConfigurations tunes Application Aware Quota.
// +k8s:openapi-gen=true
type ApplicationAwareConfigurations struct {
	// VmiCalcConfigName chooses how VM pods are charged against quota.
	// +kubebuilder:validation:Enum=VmiPodUsage;VirtualResources;DedicatedVirtualResources;IgnoreVmiCalculator;GuestEffectiveResources
	// +kubebuilder:default=DedicatedVirtualResources
	// +optional
	VmiCalcConfigName *string `json:"vmiCalcConfigName,omitempty"`

	// NamespaceSelector limits where the scheduling gate is injected.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// AllowApplicationAwareClusterResourceQuota enables the cluster-scoped
	// quota kind.
	// +kubebuilder:default=false
	// +optional
	AllowApplicationAwareClusterResourceQuota bool `json:"allowApplicationAwareClusterResourceQuota,omitempty"`
}

// HigherWorkloadDensityConfiguration trades memory head-room for density.
type HigherWorkloadDensityConfiguration struct {
	// MemoryOvercommitPercentage is the guest memory shown relative to the
	// virt-launcher pod's request; above 100 overcommits and risks OOM.
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:default=100
	// +optional
	MemoryOvercommitPercentage int `json:"memoryOvercommitPercentage,omitempty"`
}

// KubeMacPoolConfig narrows kubemacpool's MAC range so that clusters sharing a
// layer-2 segment do not hand out the same addresses.
// +k8s:openapi-gen=true
// +kubebuilder:validation:XValidation:rule="(has(self.rangeStart) && has(self.rangeEnd)) || (!has(self.rangeStart) && !has(self.rangeEnd))",message="both rangeStart and rangeEnd must be configured together, or both omitted"
type KubeMacPoolConfig struct {
	// RangeStart is the first MAC of the range, as AA:BB:CC:DD:EE:FF.
	// +kubebuilder:validation:Pattern=`^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$`
	// +optional
	RangeStart *string `json:"rangeStart,omitempty"`

	// RangeEnd is the last MAC of the range, as AA:BB:CC:DD:EE:FF.
	// +kubebuilder:validation:Pattern=`^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$`
	// +optional
	RangeEnd *string `json:"rangeEnd,omitempty"`
}
