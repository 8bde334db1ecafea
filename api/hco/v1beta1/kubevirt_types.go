package v1beta1

// The types in this file carry settings that the operator forwards into the
// KubeVirt CR. They are declared here, in the KubeVirt JSON shape, because the
// api tree must not import kubevirt.io/api; conversion happens in the
// operator, not in this package.

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EvictionStrategy is KubeVirt's answer to a node drain.
type EvictionStrategy string

const (
	// EvictionStrategyNone lets drained VMs shut down.
	EvictionStrategyNone EvictionStrategy = "None"
	// EvictionStrategyLiveMigrate migrates VMs and blocks the drain for VMs
	// that cannot migrate.
	EvictionStrategyLiveMigrate EvictionStrategy = "LiveMigrate"
	// EvictionStrategyLiveMigrateIfPossible migrates when it can and evicts
	// otherwise, so drains never hang.
	EvictionStrategyLiveMigrateIfPossible EvictionStrategy = "LiveMigrateIfPossible"
	// EvictionStrategyExternal blocks the drain and leaves the decision to an
	// external controller.
	EvictionStrategyExternal EvictionStrategy = "External"
)

// RoleAggregationStrategy decides whether KubeVirt roles aggregate into the
// default Kubernetes roles.
type RoleAggregationStrategy string

const (
	// RoleAggregationStrategyAggregateToDefault adds the aggregate-to-*
	// labels, so admin/edit/view users get VM permissions automatically.
	RoleAggregationStrategyAggregateToDefault RoleAggregationStrategy = "AggregateToDefault"
	// RoleAggregationStrategyManual leaves RBAC entirely to the admin.
	RoleAggregationStrategyManual RoleAggregationStrategy = "Manual"
)

// KSMConfiguration enables kernel same-page merging, which saves memory on
// nodes running many similar guests at some CPU cost.
// +k8s:openapi-gen=true
type KSMConfiguration struct {
	// NodeLabelSelector picks the nodes where KSM runs; an empty selector
	// means every node.
	// +optional
	NodeLabelSelector *metav1.LabelSelector `json:"nodeLabelSelector,omitempty"`
}

// LiveUpdateConfiguration bounds CPU and memory hotplug so that a VM's
// ceiling is known at boot time.
type LiveUpdateConfiguration struct {
	// MaxHotplugRatio derives the ceiling from the boot size when MaxCpuSockets
	// or MaxGuest is unset; KubeVirt assumes 4.
	// +optional
	MaxHotplugRatio uint32 `json:"maxHotplugRatio,omitempty"`
	// MaxCpuSockets is the socket ceiling for VMs that set none.
	// +optional
	MaxCpuSockets *uint32 `json:"maxCpuSockets,omitempty"`
	// MaxGuest is the memory ceiling for hotplug.
	// +optional
	MaxGuest *resource.Quantity `json:"maxGuest,omitempty"`
}

// InterfaceBindingPlugin registers one network binding plugin.
type InterfaceBindingPlugin struct {
	// SidecarImage runs in virt-launcher and rewrites the domain network
	// configuration.
	// +optional
	SidecarImage string `json:"sidecarImage,omitempty"`
	// NetworkAttachmentDefinition is "<name>" or "<namespace>/<name>"; the
	// VMI namespace is assumed when none is given.
	// +optional
	NetworkAttachmentDefinition string `json:"networkAttachmentDefinition,omitempty"`
	// DomainAttachmentType uses a built-in attachment ("tap", "managedTap")
	// instead of, or in addition to, a sidecar.
	// +optional
	DomainAttachmentType string `json:"domainAttachmentType,omitempty"`
	// Migration declares the binding safe to live-migrate.
	// +optional
	Migration *InterfaceBindingMigration `json:"migration,omitempty"`
	// DownwardAPI exposes extra data to the sidecar ("device-info").
	// +optional
	DownwardAPI string `json:"downwardAPI,omitempty"`
	// ComputeResourceOverhead is added to the compute container so the pod
	// accounts for what the binding itself consumes.
	// +optional
	ComputeResourceOverhead *ResourceRequirementsWithoutClaims `json:"computeResourceOverhead,omitempty"`
}

// InterfaceBindingMigration describes how a binding survives migration.
type InterfaceBindingMigration struct {
	// Method names a pre-defined strategy, e.g. "link-refresh", which bounces
	// the link so the guest renews DHCP on the target.
	// +optional
	Method string `json:"method,omitempty"`
}

// ResourceRequirementsWithoutClaims is corev1.ResourceRequirements minus
// Claims, which make no sense for a per-binding overhead.
type ResourceRequirementsWithoutClaims struct {
	// Limits caps the added resources.
	// +optional
	Limits corev1.ResourceList `json:"limits,omitempty"`
	// Requests reserves the added resources.
	// +optional
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

// LogVerbosity sets KubeVirt log levels per component, and optionally per
// node so a single misbehaving host can be debugged.
type LogVerbosity struct {
	// VirtAPI verbosity.
	// +optional
	VirtAPI uint `json:"virtAPI,omitempty"`
	// VirtController verbosity.
	// +optional
	VirtController uint `json:"virtController,omitempty"`
	// VirtHandler verbosity.
	// +optional
	VirtHandler uint `json:"virtHandler,omitempty"`
	// VirtLauncher verbosity.
	// +optional
	VirtLauncher uint `json:"virtLauncher,omitempty"`
	// VirtOperator verbosity.
	// +optional
	VirtOperator uint `json:"virtOperator,omitempty"`
	// VirtSynchronizationController verbosity.
	// +optional
	VirtSynchronizationController uint `json:"virtSynchronizationController,omitempty"`
	// NodeVerbosity overrides the level on named nodes.
	// +optional
	NodeVerbosity map[string]uint `json:"nodeVerbosity,omitempty"`
}

// InstancetypeConfiguration controls how VMs hold on to instance types.
type InstancetypeConfiguration struct {
	// ReferencePolicy: "reference" snapshots the instance type in a
	// ControllerRevision, "expand" inlines it into new VMs, "expandAll"
	// inlines it into all VMs.
	// +kubebuilder:validation:Enum=reference;expand;expandAll
	// +nullable
	// +optional
	ReferencePolicy *string `json:"referencePolicy,omitempty"`
}

// CommonInstancetypesDeployment toggles the bundled instance types.
type CommonInstancetypesDeployment struct {
	// Enabled defaults to true in KubeVirt.
	// +nullable
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// HypervisorConfiguration names the hypervisor present on nodes.
type HypervisorConfiguration struct {
	// Name is "kvm" or "hyperv-direct".
	// +kubebuilder:validation:Enum=kvm;hyperv-direct
	// +optional
	Name string `json:"name,omitempty"`
}
