package volumepopulator

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// Annotations and labels CDI's populators put on the claims, with
// upstream's names.
const (
	AnnPopulatorKind       = "cdi.kubevirt.io/storage.populator.kind"
	AnnPVCPrimeName        = "cdi.kubevirt.io/storage.populator.pvcPrime"
	AnnPopulatorProgress   = "cdi.kubevirt.io/storage.populator.progress"
	AnnImmediateBinding    = "cdi.kubevirt.io/storage.bind.immediate.requested"
	AnnSelectedNode        = "volume.kubernetes.io/selected-node"
	AnnContentType         = "cdi.kubevirt.io/storage.contentType"
	AnnSource              = "cdi.kubevirt.io/storage.import.source"
	AnnEndpoint            = "cdi.kubevirt.io/storage.import.endpoint"
	AnnSecret              = "cdi.kubevirt.io/storage.import.secretName"
	AnnCertConfigMap       = "cdi.kubevirt.io/storage.import.certConfigMap"
	AnnRetainAfterDone     = "cdi.kubevirt.io/storage.pod.retainAfterCompletion"
	LabelExcludeFromVelero = "velero.io/exclude-from-backup"
)

// primeName is upstream's name for the claim that is filled in the
// target's place.
func primeName(pvc *corev1.PersistentVolumeClaim) string { return "prime-" + string(pvc.UID) }

// isImportTarget tells whether the claim asks CDI's import populator to
// fill it. Cross-namespace references are not supported, as upstream.
func isImportTarget(pvc *corev1.PersistentVolumeClaim) bool {
	ref := pvc.Spec.DataSourceRef
	return ref != nil && ref.APIGroup != nil && *ref.APIGroup == cdiv1.SchemeGroupVersion.Group &&
		ref.Kind == cdiv1.VolumeImportSourceRef && ref.Name != "" && ref.Namespace == nil
}

// readyForPopulation tells whether the claim may be populated now and on
// which node: a WaitForFirstConsumer claim waits for its consumer's node
// unless immediate binding was asked for.
func (r *Reconciler) readyForPopulation(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (bool, string, error) {
	if pvc.Spec.StorageClassName == nil {
		// A class may still be assigned to it.
		return false, "", nil
	}
	if *pvc.Spec.StorageClassName == "" {
		return false, "", fmt.Errorf("PVC %s/%s has empty storage class name", pvc.Namespace, pvc.Name)
	}
	sc := &storagev1.StorageClass{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: *pvc.Spec.StorageClassName}, sc); err != nil {
		if apierrors.IsNotFound(err) {
			return false, "", fmt.Errorf("storage class %s not found", *pvc.Spec.StorageClassName)
		}
		return false, "", fmt.Errorf("reading storage class of PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	if strings.HasPrefix(sc.Provisioner, "kubernetes.io/") {
		return false, "", fmt.Errorf("can't use populator for PVC %s/%s with in-tree storage class %s", pvc.Namespace, pvc.Name, sc.Provisioner)
	}
	if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		return true, "", nil
	}
	node := pvc.Annotations[AnnSelectedNode]
	_, immediate := pvc.Annotations[AnnImmediateBinding]
	return node != "" || immediate, node, nil
}

// desiredPrime is the claim filled in the target's place: same class,
// size and modes, owned by the target, annotated with the source as CDI
// annotates it.
func desiredPrime(pvc *corev1.PersistentVolumeClaim, src *cdiv1.VolumeImportSource, node string) *corev1.PersistentVolumeClaim {
	ann := map[string]string{AnnImmediateBinding: "", AnnPopulatorKind: cdiv1.VolumeImportSourceRef,
		AnnContentType: contentType(src)}
	if node != "" {
		ann[AnnSelectedNode] = node
	}
	if v, ok := pvc.Annotations[AnnRetainAfterDone]; ok {
		ann[AnnRetainAfterDone] = v
	}
	sourceAnnotations(ann, src)
	prime := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: primeName(pvc), Namespace: pvc.Namespace, Annotations: ann,
			Labels: map[string]string{"app": "containerized-data-importer", LabelExcludeFromVelero: "true"},
		},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: pvc.Spec.AccessModes, Resources: *pvc.Spec.Resources.DeepCopy(),
			StorageClassName: pvc.Spec.StorageClassName, VolumeMode: pvc.Spec.VolumeMode,
		},
	}
	prime.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(pvc, corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))}
	return prime
}

func contentType(src *cdiv1.VolumeImportSource) string {
	if src.Spec.ContentType == cdiv1.DataVolumeArchive {
		return string(cdiv1.DataVolumeArchive)
	}
	return string(cdiv1.DataVolumeKubeVirt)
}

// sourceAnnotations records the source on the prime claim as CDI's
// import controller reads it there.
func sourceAnnotations(ann map[string]string, src *cdiv1.VolumeImportSource) {
	s := src.Spec.Source
	switch {
	case s != nil && s.HTTP != nil:
		ann[AnnSource], ann[AnnEndpoint] = "http", s.HTTP.URL
		setIf(ann, AnnSecret, s.HTTP.SecretRef)
		setIf(ann, AnnCertConfigMap, s.HTTP.CertConfigMap)
	case s != nil && s.Registry != nil:
		ann[AnnSource] = "registry"
		if s.Registry.URL != nil {
			ann[AnnEndpoint] = *s.Registry.URL
		}
	default:
		ann[AnnSource] = "none"
	}
}

func setIf(ann map[string]string, key, v string) {
	if v != "" {
		ann[key] = v
	}
}
