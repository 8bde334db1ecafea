package v1beta1

import (
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HostPathProvisionerSpec describes where on each node volumes are carved out
// and where the provisioner pods run.
// +k8s:openapi-gen=true
type HostPathProvisionerSpec struct {
	// ImagePullPolicy applies to all provisioner containers.
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// Deprecated: PathConfig is the single-directory legacy layout; use
	// StoragePools. It stays so legacy manifests keep working.
	// +optional
	PathConfig *PathConfig `json:"pathConfig,omitempty"`

	// Workload restricts which nodes run provisioner pods, and therefore
	// which nodes can host volumes.
	// +optional
	Workload NodePlacement `json:"workload,omitempty"`

	// FeatureGates lists opt-in features by name.
	// +listType=set
	// +optional
	FeatureGates []string `json:"featureGates,omitempty"`

	// StoragePools are the named backing locations a StorageClass can refer
	// to through its storagePool parameter.
	// +listType=atomic
	// +optional
	StoragePools []StoragePool `json:"storagePools,omitempty"`
}

// PathConfig is the legacy single-directory layout.
// +k8s:openapi-gen=true
type PathConfig struct {
	// Path is the host directory under which volume directories are created.
	// +optional
	Path string `json:"path,omitempty"`
	// UseNamingPrefix prefixes directories with the PVC name, which makes
	// them easier to identify on the host.
	// +optional
	UseNamingPrefix bool `json:"useNamingPrefix,omitempty"`
}

// StoragePool is one place on each node where volumes may be created. With a
// PVCTemplate, the pool is itself backed by a claim from another storage
// class (for example a large block device), mounted at Path.
// +k8s:openapi-gen=true
type StoragePool struct {
	// Name is referenced from StorageClass parameters.
	Name string `json:"name"`
	// PVCTemplate, when set, makes the operator claim backing storage per
	// node and mount it at Path.
	// +optional
	PVCTemplate *corev1.PersistentVolumeClaimSpec `json:"pvcTemplate,omitempty"`
	// Path is the host directory that holds the pool's volumes.
	Path string `json:"path"`
	// SnapshotPath is where snapshots of pool volumes are stored.
	// +optional
	SnapshotPath string `json:"snapshotPath,omitempty"`
	// SnapshotProvider selects the snapshot implementation.
	// +optional
	SnapshotProvider string `json:"snapshotProvider,omitempty"`
}

// NodePlacement steers provisioner pods onto nodes.
// +k8s:openapi-gen=true
type NodePlacement struct {
	// NodeSelector must match node labels.
	// +kubebuilder:validation:Optional
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Affinity adds constraints a label match cannot express.
	// +kubebuilder:validation:Optional
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// Tolerations let pods land on tainted nodes, in addition to the
	// defaults.
	// +kubebuilder:validation:Optional
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// HostPathProvisionerStatus reports rollout progress and per-pool readiness.
// +k8s:openapi-gen=true
type HostPathProvisionerStatus struct {
	// Conditions summarise the deployment's health.
	// +listType=atomic
	// +optional
	Conditions []conditionsv1.Condition `json:"conditions,omitempty"`
	// OperatorVersion is the running operator's version.
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// TargetVersion is the provisioner version being rolled out.
	// +optional
	TargetVersion string `json:"targetVersion,omitempty"`
	// ObservedVersion is the provisioner version currently deployed.
	// +optional
	ObservedVersion string `json:"observedVersion,omitempty"`
	// StoragePoolStatuses reports each pool separately, since PVC-backed pools
	// become ready node by node.
	// +listType=atomic
	// +optional
	StoragePoolStatuses []StoragePoolStatus `json:"storagePoolStatuses,omitempty"`
}

// StoragePoolPhase is the lifecycle stage of a storage pool.
type StoragePoolPhase string

const (
	// StoragePoolPreparing means backing volumes are still being prepared.
	StoragePoolPreparing StoragePoolPhase = "Preparing"
	// StoragePoolMounting means backing volumes are being mounted on nodes.
	StoragePoolMounting StoragePoolPhase = "Mounting"
	// StoragePoolReady means every node can serve volumes from the pool.
	StoragePoolReady StoragePoolPhase = "Ready"
)

// StoragePoolStatus reports one pool.
type StoragePoolStatus struct {
	// Name matches StoragePool.Name.
	Name string `json:"name"`
	// Phase is the pool's lifecycle stage.
	Phase StoragePoolPhase `json:"phase"`
	// DesiredReady is how many per-node pool instances should be ready.
	// +optional
	DesiredReady int `json:"desiredReady,omitempty"`
	// CurrentReady is how many per-node pool instances are ready.
	// +optional
	CurrentReady int `json:"currentReady,omitempty"`
	// ClaimStatuses reports the backing claims of a PVC-backed pool.
	// +listType=atomic
	// +optional
	ClaimStatuses []ClaimStatus `json:"claimStatuses,omitempty"`
}

// ClaimStatus reports one backing claim of a pool.
type ClaimStatus struct {
	// Name of the PersistentVolumeClaim.
	Name string `json:"name"`
	// Status is copied from the claim.
	Status corev1.PersistentVolumeClaimStatus `json:"status"`
}

// HostPathProvisioner deploys the hostpath CSI driver that turns node-local
// directories into PersistentVolumes.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=hostpathprovisioners,scope=Cluster
type HostPathProvisioner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes pools and placement.
	// +optional
	Spec HostPathProvisionerSpec `json:"spec,omitempty"`
	// Status is written only by the operator.
	// +optional
	Status HostPathProvisionerStatus `json:"status,omitempty"`
}

// HostPathProvisionerList is the list form of HostPathProvisioner.
// +kubebuilder:object:root=true
type HostPathProvisionerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the objects returned by the list call.
	Items []HostPathProvisioner `json:"items"`
}
