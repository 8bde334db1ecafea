package v1beta1

// The types in this file mirror the parts of the CDI API that HyperConverged
// embeds (golden-image crons and filesystem overhead). They keep CDI's JSON
// shape so that templates can be handed to SSP/CDI unchanged, but only the
// DataVolume fields golden images actually use are modelled.

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Percent is a fraction in [0,1] written as a string, because CRD schemas
// cannot express decimals portably.
// +kubebuilder:validation:Pattern=`^(0(?:\.\d{1,3})?|1)$`
type Percent string

// FilesystemOverhead reserves part of Filesystem-mode volumes for file system
// metadata so images fit after formatting.
type FilesystemOverhead struct {
	// Global applies unless a storage class has its own value.
	// +optional
	Global Percent `json:"global,omitempty"`
	// StorageClass overrides Global per storage class name.
	// +optional
	StorageClass map[string]Percent `json:"storageClass,omitempty"`
}

// DataImportCronTemplate defines one golden-image import cron. metadata.name
// is required; the namespace may be left to the operator.
type DataImportCronTemplate struct {
	// ObjectMeta carries the name, and annotations the operator interprets
	// (for example, architecture hints).
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the DataImportCron spec; nil means "use the common template of
	// the same name unchanged".
	// +optional
	Spec *DataImportCronSpec `json:"spec,omitempty"`
}

// DataImportCronGarbageCollect decides whether superseded imports are pruned.
type DataImportCronGarbageCollect string

// DataImportCronRetentionPolicy decides what survives deletion of the cron.
type DataImportCronRetentionPolicy string

// DataImportCronSpec polls a source on a schedule and keeps a DataSource
// pointing at the newest import.
type DataImportCronSpec struct {
	// Template is the DataVolume created for each new import.
	Template DataVolumeTemplate `json:"template"`
	// Schedule is a cron expression for polling the source.
	Schedule string `json:"schedule"`
	// GarbageCollect is "Outdated" (default) or "Never".
	// +optional
	GarbageCollect *DataImportCronGarbageCollect `json:"garbageCollect,omitempty"`
	// ImportsToKeep bounds how many imports survive garbage collection
	// (CDI default 3).
	// +optional
	ImportsToKeep *int32 `json:"importsToKeep,omitempty"`
	// ManagedDataSource is the DataSource, in the same namespace, kept
	// pointing at the latest import.
	ManagedDataSource string `json:"managedDataSource"`
	// RetentionPolicy is "All" (default) or "None".
	// +optional
	RetentionPolicy *DataImportCronRetentionPolicy `json:"retentionPolicy,omitempty"`
	// ServiceAccountName creates the DataVolumes under this identity.
	// +kubebuilder:validation:MinLength=1
	// +optional
	ServiceAccountName *string `json:"serviceAccountName,omitempty"`
}

// DataVolumeTemplate is the DataVolume object embedded in a cron. Status is
// not modelled because a template never carries one. apiVersion and kind are
// plain fields rather than an embedded TypeMeta so that CRD tooling does not
// mistake the template for a top-level kind.
type DataVolumeTemplate struct {
	// APIVersion is accepted for manifests that spell it out; CDI ignores it.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is accepted for manifests that spell it out; CDI ignores it.
	// +optional
	Kind string `json:"kind,omitempty"`
	// ObjectMeta holds labels and annotations copied onto each import.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec describes the source and the target volume.
	Spec DataVolumeSpec `json:"spec"`
}

// DataVolumeSpec is the subset of CDI's DataVolumeSpec used by golden images.
type DataVolumeSpec struct {
	// Source says where the data comes from.
	// +optional
	Source *DataVolumeSource `json:"source,omitempty"`
	// SourceRef points at a DataSource instead of an inline source.
	// +optional
	SourceRef *DataVolumeSourceRef `json:"sourceRef,omitempty"`
	// PVC gives an explicit claim spec; Storage is preferred because CDI
	// completes it from StorageProfiles.
	// +optional
	PVC *corev1.PersistentVolumeClaimSpec `json:"pvc,omitempty"`
	// Storage is a claim spec that CDI completes from StorageProfiles.
	// +optional
	Storage *StorageSpec `json:"storage,omitempty"`
	// PriorityClassName applies to the importer pods.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// ContentType is "kubevirt" (a disk image) or "archive".
	// +kubebuilder:validation:Enum="kubevirt";"archive"
	// +optional
	ContentType string `json:"contentType,omitempty"`
	// Preallocation allocates the whole volume up front.
	// +optional
	Preallocation *bool `json:"preallocation,omitempty"`
}

// DataVolumeSource is a union; exactly one member is expected to be set.
type DataVolumeSource struct {
	// HTTP imports from an http(s) URL.
	// +optional
	HTTP *DataVolumeSourceHTTP `json:"http,omitempty"`
	// Registry imports a container disk.
	// +optional
	Registry *DataVolumeSourceRegistry `json:"registry,omitempty"`
	// PVC clones an existing claim.
	// +optional
	PVC *DataVolumeSourcePVC `json:"pvc,omitempty"`
	// Snapshot restores a VolumeSnapshot.
	// +optional
	Snapshot *DataVolumeSourcePVC `json:"snapshot,omitempty"`
	// Blank creates an empty image.
	// +optional
	Blank *DataVolumeBlankImage `json:"blank,omitempty"`
	// Upload waits for a client upload.
	// +optional
	Upload *DataVolumeSourceUpload `json:"upload,omitempty"`
}

// DataVolumeSourceHTTP imports from an http(s) endpoint.
type DataVolumeSourceHTTP struct {
	// URL of the image.
	URL string `json:"url"`
	// SecretRef names a Secret with accessKeyId/secretKey credentials.
	// +optional
	SecretRef string `json:"secretRef,omitempty"`
	// CertConfigMap names a ConfigMap holding a CA bundle.
	// +optional
	CertConfigMap string `json:"certConfigMap,omitempty"`
	// ExtraHeaders are sent with each request.
	// +optional
	ExtraHeaders []string `json:"extraHeaders,omitempty"`
	// SecretExtraHeaders name Secrets holding sensitive headers.
	// +optional
	SecretExtraHeaders []string `json:"secretExtraHeaders,omitempty"`
}

// DataVolumeSourceRegistry imports a container disk from a registry.
type DataVolumeSourceRegistry struct {
	// URL uses the docker:// or oci-archive:// scheme.
	// +optional
	URL *string `json:"url,omitempty"`
	// ImageStream names an OpenShift image stream instead of a URL.
	// +optional
	ImageStream *string `json:"imageStream,omitempty"`
	// PullMethod is "pod" (default) or "node"; "node" reuses the node's
	// image cache, which golden images rely on to avoid re-downloads.
	// +optional
	PullMethod *string `json:"pullMethod,omitempty"`
	// SecretRef names the pull Secret.
	// +optional
	SecretRef *string `json:"secretRef,omitempty"`
	// CertConfigMap names a ConfigMap holding registry certificates.
	// +optional
	CertConfigMap *string `json:"certConfigMap,omitempty"`
	// Platform selects the image variant on multi-arch registries.
	// +optional
	Platform *PlatformOptions `json:"platform,omitempty"`
}

// PlatformOptions picks an image variant.
type PlatformOptions struct {
	// Architecture is the target CPU architecture.
	// +optional
	Architecture string `json:"architecture,omitempty"`
}

// DataVolumeSourcePVC names a namespaced claim or snapshot to copy from.
type DataVolumeSourcePVC struct {
	// Namespace of the source.
	Namespace string `json:"namespace"`
	// Name of the source.
	Name string `json:"name"`
}

// DataVolumeBlankImage requests an empty image; it has no settings.
type DataVolumeBlankImage struct{}

// DataVolumeSourceUpload requests an upload; it has no settings.
type DataVolumeSourceUpload struct{}

// DataVolumeSourceRef points at a DataSource.
type DataVolumeSourceRef struct {
	// Kind is "DataSource", the only kind CDI resolves today.
	Kind string `json:"kind"`
	// Namespace defaults to the DataVolume's namespace.
	// +optional
	Namespace *string `json:"namespace,omitempty"`
	// Name of the DataSource.
	Name string `json:"name"`
}

// StorageSpec is a claim spec whose gaps CDI fills from StorageProfiles.
type StorageSpec struct {
	// AccessModes of the volume.
	// +optional
	AccessModes []corev1.PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// Selector limits which PVs may bind.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Resources sets the requested size.
	// +optional
	Resources corev1.VolumeResourceRequirements `json:"resources,omitempty"`
	// VolumeName binds to a specific PV.
	// +optional
	VolumeName string `json:"volumeName,omitempty"`
	// StorageClassName picks the class; unset means the default class.
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`
	// VolumeMode is Filesystem, Block, or FromStorageProfile.
	// +optional
	VolumeMode *corev1.PersistentVolumeMode `json:"volumeMode,omitempty"`
	// DataSource populates the volume from a snapshot or claim.
	// +optional
	DataSource *corev1.TypedLocalObjectReference `json:"dataSource,omitempty"`
	// DataSourceRef populates the volume from any populator object.
	// +optional
	DataSourceRef *corev1.TypedObjectReference `json:"dataSourceRef,omitempty"`
}

// DataImportCronStatus reports how the operator treated one template.
type DataImportCronStatus struct {
	// Conditions describe the state of the template.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// CommonTemplate is true for built-in templates, false for custom ones.
	// +optional
	CommonTemplate bool `json:"commonTemplate,omitempty"`
	// Modified is true when a built-in template was customised.
	// +optional
	Modified bool `json:"modified,omitempty"`
	// OriginalSupportedArchitectures is the comma-separated architecture list
	// of the built-in template before any customisation.
	// +optional
	OriginalSupportedArchitectures string `json:"originalSupportedArchitectures,omitempty"`
}

// DataImportCronTemplateStatus is a template as actually handed to SSP.
type DataImportCronTemplateStatus struct {
	DataImportCronTemplate `json:",inline"`

	// Status reports how the operator treated the template.
	// +optional
	Status DataImportCronStatus `json:"status,omitempty"`
}
