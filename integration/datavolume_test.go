//go:build integration

package integration

import (
	"context"
	"crypto/rand"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// testImages writes a 32 MiB raw disk with data in two places and its
// qcow2, iso, xz and gz forms, under names that do not say what they are.
func testImages(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	raw := make([]byte, 32<<20)
	_, err := rand.Read(raw[:6<<20])
	require.NoError(t, err)
	_, err = rand.Read(raw[20<<20 : 21<<20])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "disk.raw"), raw, 0o644))
	run := func(name string, args ...string) {
		out, err := exec.Command(name, args...).CombinedOutput()
		require.NoError(t, err, "%s %v: %s", name, args, out)
	}
	run("qemu-img", "convert", "-f", "raw", "-O", "qcow2", filepath.Join(dir, "disk.raw"), filepath.Join(dir, "disk.qcow2"))
	run("genisoimage", "-quiet", "-o", filepath.Join(dir, "disk.iso"), filepath.Join(dir, "disk.raw"))
	run("sh", "-c", "xz -0 -T2 -c "+filepath.Join(dir, "disk.raw")+" > "+filepath.Join(dir, "image-a"))
	run("sh", "-c", "gzip -1 -c "+filepath.Join(dir, "disk.qcow2")+" > "+filepath.Join(dir, "image-b"))
	return dir
}

// Every format lands on the volume as the same bytes qemu-img convert
// makes of the source, grown to the requested size, with CDI's status.
func TestDataVolumeImportsEveryFormat(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := testImages(t)
	srv := serveImages(t, dir)
	sources := map[string]string{"dv-qcow2": "disk.qcow2", "dv-raw": "disk.raw", "dv-iso": "disk.iso", "dv-xz": "image-a", "dv-gz": "image-b"}
	for name, file := range sources {
		require.NoError(t, s.c.Create(context.Background(), s.importDV(name, srv.url+"/"+file, "64Mi", true)))
		defer s.deleteDV(name)
	}
	blank := s.importDV("dv-blank", "", "64Mi", true)
	blank.Spec.Source = &cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}}
	require.NoError(t, s.c.Create(context.Background(), blank))
	defer s.deleteDV("dv-blank")
	pvcForm := s.importDV("dv-pvc-form", srv.url+"/disk.raw", "64Mi", true)
	pvcForm.Spec.PVC = &corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: ptr.To(testStorageClass),
		Resources: pvcForm.Spec.Storage.Resources,
	}
	pvcForm.Spec.Storage = nil
	require.NoError(t, s.c.Create(context.Background(), pvcForm))
	defer s.deleteDV("dv-pvc-form")
	for name, file := range sources {
		dv := s.waitDVPhase(name, cdiv1.Succeeded, 2*time.Minute)
		require.Equal(t, cdiv1.DataVolumeProgress("100.0%"), dv.Status.Progress, name)
		require.Equal(t, corev1.ConditionTrue, dvCondition(dv, cdiv1.DataVolumeReady).Status, name)
		require.Equal(t, corev1.ConditionTrue, dvCondition(dv, cdiv1.DataVolumeBound).Status, name)
		require.Equal(t, "Import Complete", dvCondition(dv, cdiv1.DataVolumeRunning).Message, name)
		ref := filepath.Join(dir, file)
		if strings.HasPrefix(file, "image-") {
			ref = filepath.Join(dir, map[string]string{"image-a": "disk.raw", "image-b": "disk.qcow2"}[file])
		}
		require.Equal(t, referenceDigest(t, ref, 64<<20), fileDigest(t, s.diskOf(name)), "%s holds what qemu-img convert makes of %s", name, file)
	}
	s.waitDVPhase("dv-blank", cdiv1.Succeeded, time.Minute)
	zeros := filepath.Join(t.TempDir(), "zeros.raw")
	require.NoError(t, os.Truncate(createEmpty(t, zeros), 64<<20))
	require.Equal(t, fileDigest(t, zeros), fileDigest(t, s.diskOf("dv-blank")), "a blank disk is 64 MiB of zeros")
	// The pvc form is taken as written: the disk gets what is left after
	// CDI's 5.5% filesystem overhead, aligned down to a MiB (60 MiB).
	s.waitDVPhase("dv-pvc-form", cdiv1.Succeeded, time.Minute)
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.raw"), 60<<20), fileDigest(t, s.diskOf("dv-pvc-form")))
}

func createEmpty(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return path
}

// Sources that can never work end Failed with the reason; a source that
// is down is retried with the reason in the Running condition.
func TestDataVolumeFailuresSayWhy(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := testImages(t)
	corrupt := append([]byte("QFI\xfb"), make([]byte, 1<<20)...)
	_, _ = rand.Read(corrupt[4:])
	require.NoError(t, os.WriteFile(filepath.Join(dir, "corrupt.qcow2"), corrupt, 0o644))
	srv := serveImages(t, dir)
	failing := map[string]struct{ url, size, message string }{
		"dv-404":     {srv.url + "/missing.qcow2", "64Mi", "expected status code 200, got 404. Status: 404 Not Found"},
		"dv-corrupt": {srv.url + "/corrupt.qcow2", "64Mi", "the source is not a disk image qemu-img can read: Unsupported qcow2 version"},
		"dv-small":   {srv.url + "/disk.qcow2", "16Mi", "Virtual image size 33554432 is larger than the reported available storage"},
	}
	for name, c := range failing {
		require.NoError(t, s.c.Create(context.Background(), s.importDV(name, c.url, c.size, true)))
		defer s.deleteDV(name)
	}
	require.NoError(t, s.c.Create(context.Background(), s.importDV("dv-down", "http://127.0.0.1:1/disk.qcow2", "64Mi", true)))
	defer s.deleteDV("dv-down")
	for name, c := range failing {
		dv := s.waitDVPhase(name, cdiv1.Failed, 2*time.Minute)
		running := dvCondition(dv, cdiv1.DataVolumeRunning)
		require.Equal(t, "Error", running.Reason, name)
		require.Contains(t, running.Message, c.message, name)
	}
	require.Eventually(t, func() bool {
		dv := s.getDV("dv-down")
		c := dvCondition(dv, cdiv1.DataVolumeRunning)
		return dv.Status.Phase == cdiv1.ImportInProgress && c.Reason == "Error" &&
			strings.Contains(c.Message, "connection refused") && dv.Status.RestartCount > 0
	}, time.Minute, 200*time.Millisecond, "an unreachable source is retried with its reason shown")
}

// The spec cannot change after creation, and a DataVolume without a source
// is refused, with CDI's messages.
func TestDataVolumeWebhookKeepsTheSpec(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	ctx := context.Background()
	bad := s.importDV("dv-nosource", "", "64Mi", false)
	bad.Spec.Source = nil
	err := s.c.Create(ctx, bad)
	require.ErrorContains(t, err, "Data volume should have either Source or SourceRef")
	dv := s.importDV("dv-keep", "http://127.0.0.1:1/disk.qcow2", "64Mi", false)
	require.NoError(t, s.c.Create(ctx, dv))
	defer s.deleteDV("dv-keep")
	require.Eventually(t, func() bool {
		return s.getDV("dv-keep").Status.Phase == cdiv1.WaitForFirstConsumer
	}, time.Minute, 200*time.Millisecond, "without a consumer a WaitForFirstConsumer claim waits")
	got := s.getDV("dv-keep")
	got.Spec.Source.HTTP.URL = "http://127.0.0.1:2/other.qcow2"
	require.ErrorContains(t, s.c.Update(ctx, got), "Cannot update DataVolume Spec")
	pvc := &corev1.PersistentVolumeClaim{}
	require.NoError(t, s.c.Get(ctx, s.key("dv-keep"), pvc))
	require.Equal(t, corev1.ClaimPending, pvc.Status.Phase)
}

// An https source with its own CA (certConfigMap) and basic auth
// (secretRef) imports; without the credentials it fails with the
// server's answer.
func TestDataVolumeImportsWithCustomCAAndBasicAuth(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := testImages(t)
	files := http.FileServer(http.Dir(dir))
	srv := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "importer" || p != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="images"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		files.ServeHTTP(w, r)
	}))
	ctx := context.Background()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	require.NoError(t, s.c.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "images-ca"}, Data: map[string]string{"ca.pem": string(ca)},
	}))
	defer s.c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "images-ca"}})
	require.NoError(t, s.c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "images-auth"},
		Data:       map[string][]byte{"accessKeyId": []byte("importer"), "secretKey": []byte("s3cret")},
	}))
	defer s.c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "images-auth"}})

	good := s.importDV("dv-tls", srv.URL+"/disk.qcow2", "64Mi", true)
	good.Spec.Source.HTTP.CertConfigMap, good.Spec.Source.HTTP.SecretRef = "images-ca", "images-auth"
	require.NoError(t, s.c.Create(ctx, good))
	defer s.deleteDV("dv-tls")
	noAuth := s.importDV("dv-tls-noauth", srv.URL+"/disk.qcow2", "64Mi", true)
	noAuth.Spec.Source.HTTP.CertConfigMap = "images-ca"
	require.NoError(t, s.c.Create(ctx, noAuth))
	defer s.deleteDV("dv-tls-noauth")

	s.waitDVPhase("dv-tls", cdiv1.Succeeded, 2*time.Minute)
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.qcow2"), 64<<20), fileDigest(t, s.diskOf("dv-tls")))
	failed := s.waitDVPhase("dv-tls-noauth", cdiv1.Failed, 2*time.Minute)
	require.Contains(t, dvCondition(failed, cdiv1.DataVolumeRunning).Message, "got 401")
}
