package v1

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkAddonsConfigName is the only name the operator reconciles. The
// resource is a cluster singleton, and a fixed name lets the HyperConverged
// operator address it without a list call.
const NetworkAddonsConfigName = "cluster"

// NetworkAddonsConfigSpec selects which network add-ons to deploy. Each
// add-on is a pointer: present (even as {}) means "deploy", absent means
// "do not deploy", which is why empty structs exist below.
type NetworkAddonsConfigSpec struct {
	// Multus attaches extra network interfaces to pods.
	// +optional
	Multus *Multus `json:"multus,omitempty"`
	// MultusDynamicNetworks hot-plugs and hot-unplugs pod interfaces.
	// +optional
	MultusDynamicNetworks *MultusDynamicNetworks `json:"multusDynamicNetworks,omitempty"`
	// LinuxBridge deploys the bridge CNI plugin.
	// +optional
	LinuxBridge *LinuxBridge `json:"linuxBridge,omitempty"`
	// Ovs deploys the Open vSwitch CNI plugin.
	// +optional
	Ovs *Ovs `json:"ovs,omitempty"`
	// KubeMacPool hands out cluster-unique MACs to VMs and pods.
	// +optional
	KubeMacPool *KubeMacPool `json:"kubeMacPool,omitempty"`
	// ImagePullPolicy applies to every add-on container.
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
	// NMState is accepted for manifest compatibility; the component moved to
	// its own operator upstream.
	// +optional
	NMState *NMState `json:"nmstate,omitempty"`
	// KubeSecondaryDNS serves DNS names for VMs on secondary networks.
	// +optional
	KubeSecondaryDNS *KubeSecondaryDNS `json:"kubeSecondaryDNS,omitempty"`
	// MacvtapCni attaches pods to host interfaces through macvtap. The JSON
	// name is "macvtap", as upstream spells it.
	// +optional
	MacvtapCni *MacvtapCni `json:"macvtap,omitempty"`
	// KubevirtIpamController provides persistent IPs on secondary networks.
	// +optional
	KubevirtIpamController *KubevirtIpamController `json:"kubevirtIpamController,omitempty"`
	// SelfSignConfiguration tunes the add-ons' internal certificate rotation.
	// +optional
	SelfSignConfiguration *SelfSignConfiguration `json:"selfSignConfiguration,omitempty"`
	// PlacementConfiguration places add-on pods on infra and workload nodes.
	// +optional
	PlacementConfiguration *PlacementConfiguration `json:"placementConfiguration,omitempty"`
	// TLSSecurityProfile overrides the cluster TLS profile for add-on
	// endpoints.
	// +optional
	TLSSecurityProfile *ocpconfigv1.TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`
}

// SelfSignConfiguration tunes certificate rotation. Values are Go duration
// strings rather than metav1.Duration to keep the upstream schema.
type SelfSignConfiguration struct {
	// CARotateInterval is the CA lifetime.
	// +optional
	CARotateInterval string `json:"caRotateInterval,omitempty"`
	// CAOverlapInterval keeps the old CA trusted this long after rotation so
	// clients can pick up the new bundle.
	// +optional
	CAOverlapInterval string `json:"caOverlapInterval,omitempty"`
	// CertRotateInterval is the serving certificate lifetime.
	// +optional
	CertRotateInterval string `json:"certRotateInterval,omitempty"`
	// CertOverlapInterval keeps the old serving certificate valid this long
	// after rotation.
	// +optional
	CertOverlapInterval string `json:"certOverlapInterval,omitempty"`
}

// PlacementConfiguration splits placement between control-plane style
// components and per-node agents.
type PlacementConfiguration struct {
	// Infra places cluster-wide controllers.
	// +optional
	Infra *Placement `json:"infra,omitempty"`
	// Workloads places per-node agents (CNI plugins, device plugins).
	// +optional
	Workloads *Placement `json:"workloads,omitempty"`
}

// Placement steers pods onto nodes. Affinity is a value, not a pointer,
// because upstream declares it that way and always serialises it.
type Placement struct {
	// NodeSelector must match node labels.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Affinity adds constraints a label match cannot express.
	// +optional
	Affinity corev1.Affinity `json:"affinity,omitempty"`
	// Tolerations let pods land on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// Multus has no settings; its presence requests deployment.
type Multus struct{}

// MultusDynamicNetworks enables interface hot-plug.
type MultusDynamicNetworks struct {
	// HostCRISocketPath points at the CRI socket when the runtime does not
	// use the default location.
	// +optional
	HostCRISocketPath string `json:"hostCRISocketPath,omitempty"`
}

// LinuxBridge has no settings; its presence requests deployment.
type LinuxBridge struct{}

// Ovs has no settings; its presence requests deployment.
type Ovs struct{}

// NMState has no settings; its presence requests deployment.
type NMState struct{}

// KubeSecondaryDNS configures DNS for secondary networks.
type KubeSecondaryDNS struct {
	// Domain is the DNS suffix served.
	// +optional
	Domain string `json:"domain,omitempty"`
	// NameServerIP is the address advertised for the zone.
	// +optional
	NameServerIP string `json:"nameServerIP,omitempty"`
}

// KubeMacPool sets the MAC range; both ends must be given together, and
// leaving both empty lets the operator pick a random range.
type KubeMacPool struct {
	// RangeStart is the first MAC of the range.
	// +optional
	RangeStart string `json:"rangeStart,omitempty"`
	// RangeEnd is the last MAC of the range.
	// +optional
	RangeEnd string `json:"rangeEnd,omitempty"`
}

// MacvtapCni configures the macvtap plugin.
type MacvtapCni struct {
	// DevicePluginConfig names the ConfigMap holding the device plugin
	// configuration, to override the default one.
	// +optional
	DevicePluginConfig string `json:"devicePluginConfig,omitempty"`
}

// KubevirtIpamController configures IPAM for secondary networks.
type KubevirtIpamController struct {
	// DefaultNetworkNADNamespace is where the cluster default network's
	// NetworkAttachmentDefinition lives, needed when VMs with persistent IPs
	// attach to OVN-Kubernetes user-defined networks.
	// +optional
	DefaultNetworkNADNamespace string `json:"defaultNetworkNADNamespace,omitempty"`
}

// NetworkAddonsConfigStatus reports deployment progress and what was deployed.
type NetworkAddonsConfigStatus struct {
	// OperatorVersion is the running operator's version.
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// ObservedVersion is the add-on version currently deployed.
	// +optional
	ObservedVersion string `json:"observedVersion,omitempty"`
	// TargetVersion is the add-on version being rolled out; it differs from
	// ObservedVersion during an upgrade.
	// +optional
	TargetVersion string `json:"targetVersion,omitempty"`
	// Conditions summarise deployment health.
	// +optional
	Conditions []conditionsv1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// Containers lists every deployed image, so disconnected-install tooling
	// can mirror them.
	// +optional
	Containers []Container `json:"containers,omitempty"`
}

// Container identifies one deployed container and its image.
type Container struct {
	// Namespace of the owning workload. Current upstream omits it, so it is
	// optional here.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// ParentKind is the owning workload kind, e.g. DaemonSet.
	ParentKind string `json:"parentKind"`
	// ParentName is the owning workload name.
	ParentName string `json:"parentName"`
	// Name is the container name.
	Name string `json:"name"`
	// Image is the image reference deployed.
	Image string `json:"image"`
}

// NetworkAddonsConfig is the cluster-wide request for network add-ons.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=networkaddonsconfigs,scope=Cluster
type NetworkAddonsConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec selects and configures the add-ons.
	// +optional
	Spec NetworkAddonsConfigSpec `json:"spec,omitempty"`
	// Status is written only by the operator.
	// +optional
	Status NetworkAddonsConfigStatus `json:"status,omitempty"`
}

// NetworkAddonsConfigList is the list form of NetworkAddonsConfig.
// +kubebuilder:object:root=true
type NetworkAddonsConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the objects returned by the list call.
	Items []NetworkAddonsConfig `json:"items"`
}
