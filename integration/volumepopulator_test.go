//go:build integration

package integration

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// A claim whose dataSourceRef names a VolumeImportSource binds holding
// the source's bytes, with CDI's annotations, and its prime claim goes.
func TestVolumeImportSourcePopulatesAClaim(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := t.TempDir()
	file := randomImage(t, dir, 8<<20)
	srv := serveImages(t, dir)
	ctx := context.Background()
	s.create(&cdiv1.VolumeImportSource{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "src"},
		Spec: cdiv1.VolumeImportSourceSpec{Source: &cdiv1.ImportSourceType{
			HTTP: &cdiv1.DataVolumeSourceHTTP{URL: srv.url + "/" + filepath.Base(file)}}}})
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "populated",
			Annotations: map[string]string{"cdi.kubevirt.io/storage.bind.immediate.requested": "true"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(testStorageClass),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("64Mi")}},
			DataSourceRef:    &corev1.TypedObjectReference{APIGroup: ptr.To("cdi.kubevirt.io"), Kind: "VolumeImportSource", Name: "src"},
		},
	}
	s.create(pvc)
	defer func() { _ = s.c.Delete(ctx, pvc) }()
	src := &cdiv1.VolumeImportSource{}
	require.NoError(t, s.c.Get(ctx, s.key("src"), src))
	src.Spec.Source.HTTP.URL += ".other"
	require.EqualError(t, s.c.Update(ctx, src),
		`admission webhook "populator-validate.cdi.kubevirt.io" denied the request:  Cannot update VolumeImportSource Spec`,
		"a source's spec is fixed, as CDI's")
	require.Eventually(t, func() bool {
		return s.c.Get(ctx, s.key("populated"), pvc) == nil && pvc.Status.Phase == corev1.ClaimBound
	}, 2*time.Minute, 200*time.Millisecond, "the populated claim never bound")
	require.Equal(t, "100.0%", pvc.Annotations["cdi.kubevirt.io/storage.populator.progress"])
	require.Equal(t, "Succeeded", pvc.Annotations["cdi.kubevirt.io/storage.pod.phase"])
	prime := pvc.Annotations["cdi.kubevirt.io/storage.populator.pvcPrime"]
	require.Equal(t, "prime-"+string(pvc.UID), prime)
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(s.c.Get(ctx, s.key(prime), &corev1.PersistentVolumeClaim{}))
	}, time.Minute, 200*time.Millisecond, "the prime claim was never removed")
	// As a DataVolume's pvc form: the disk gets what is left after CDI's
	// 5.5% filesystem overhead, aligned down to a MiB (60 MiB).
	require.Equal(t, referenceDigest(t, file, 60<<20), fileDigest(t, s.diskOf("populated")))
}
