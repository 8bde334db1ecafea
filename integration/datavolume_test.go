//go:build integration

package integration

import (
	"context"
	"crypto/rand"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
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

func storageNode(t *testing.T) handler.Config {
	n := nodeConfig(t)
	hostpathStorage(t)
	return n
}

// Every format lands on the volume as the same bytes qemu-img convert
// makes of the source, grown to the requested size, with CDI's status.
func TestDataVolumeImportsEveryFormat(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
	dir := testImages(t)
	srv := serveImages(t, dir)
	sources := map[string]string{"dv-qcow2": "disk.qcow2", "dv-raw": "disk.raw", "dv-iso": "disk.iso", "dv-xz": "image-a", "dv-gz": "image-b"}
	for name, file := range sources {
		require.NoError(t, env.admin.Create(context.Background(), importDV(name, srv.url+"/"+file, "64Mi", true)))
		defer deleteDV(t, name)
	}
	blank := importDV("dv-blank", "", "64Mi", true)
	blank.Spec.Source = &cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}}
	require.NoError(t, env.admin.Create(context.Background(), blank))
	defer deleteDV(t, "dv-blank")
	pvcForm := importDV("dv-pvc-form", srv.url+"/disk.raw", "64Mi", true)
	pvcForm.Spec.PVC = &corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: ptr.To(testStorageClass),
		Resources: pvcForm.Spec.Storage.Resources,
	}
	pvcForm.Spec.Storage = nil
	require.NoError(t, env.admin.Create(context.Background(), pvcForm))
	defer deleteDV(t, "dv-pvc-form")
	for name, file := range sources {
		dv := waitDVPhase(t, name, cdiv1.Succeeded, 2*time.Minute)
		require.Equal(t, cdiv1.DataVolumeProgress("100.0%"), dv.Status.Progress, name)
		require.Equal(t, corev1.ConditionTrue, dvCondition(dv, cdiv1.DataVolumeReady).Status, name)
		require.Equal(t, corev1.ConditionTrue, dvCondition(dv, cdiv1.DataVolumeBound).Status, name)
		require.Equal(t, "Import Complete", dvCondition(dv, cdiv1.DataVolumeRunning).Message, name)
		ref := filepath.Join(dir, file)
		if strings.HasPrefix(file, "image-") {
			ref = filepath.Join(dir, map[string]string{"image-a": "disk.raw", "image-b": "disk.qcow2"}[file])
		}
		require.Equal(t, referenceDigest(t, ref, 64<<20), fileDigest(t, diskOf(t, name)), "%s holds what qemu-img convert makes of %s", name, file)
	}
	waitDVPhase(t, "dv-blank", cdiv1.Succeeded, time.Minute)
	zeros := filepath.Join(t.TempDir(), "zeros.raw")
	require.NoError(t, os.Truncate(createEmpty(t, zeros), 64<<20))
	require.Equal(t, fileDigest(t, zeros), fileDigest(t, diskOf(t, "dv-blank")), "a blank disk is 64 MiB of zeros")
	// The pvc form is taken as written: the disk gets what is left after
	// CDI's 5.5% filesystem overhead, aligned down to a MiB (60 MiB).
	waitDVPhase(t, "dv-pvc-form", cdiv1.Succeeded, time.Minute)
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.raw"), 60<<20), fileDigest(t, diskOf(t, "dv-pvc-form")))
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
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
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
		require.NoError(t, env.admin.Create(context.Background(), importDV(name, c.url, c.size, true)))
		defer deleteDV(t, name)
	}
	require.NoError(t, env.admin.Create(context.Background(), importDV("dv-down", "http://127.0.0.1:1/disk.qcow2", "64Mi", true)))
	defer deleteDV(t, "dv-down")
	for name, c := range failing {
		dv := waitDVPhase(t, name, cdiv1.Failed, 2*time.Minute)
		running := dvCondition(dv, cdiv1.DataVolumeRunning)
		require.Equal(t, "Error", running.Reason, name)
		require.Contains(t, running.Message, c.message, name)
	}
	require.Eventually(t, func() bool {
		dv := getDV(t, "dv-down")
		c := dvCondition(dv, cdiv1.DataVolumeRunning)
		return dv.Status.Phase == cdiv1.ImportInProgress && c.Reason == "Error" &&
			strings.Contains(c.Message, "connection refused") && dv.Status.RestartCount > 0
	}, time.Minute, 200*time.Millisecond, "an unreachable source is retried with its reason shown")
}

// The spec cannot change after creation, and a DataVolume without a source
// is refused, with CDI's messages.
func TestDataVolumeWebhookKeepsTheSpec(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
	ctx := context.Background()
	bad := importDV("dv-nosource", "", "64Mi", false)
	bad.Spec.Source = nil
	err := env.admin.Create(ctx, bad)
	require.ErrorContains(t, err, "Data volume should have either Source or SourceRef")
	dv := importDV("dv-keep", "http://127.0.0.1:1/disk.qcow2", "64Mi", false)
	require.NoError(t, env.admin.Create(ctx, dv))
	defer deleteDV(t, "dv-keep")
	require.Eventually(t, func() bool {
		return getDV(t, "dv-keep").Status.Phase == cdiv1.WaitForFirstConsumer
	}, time.Minute, 200*time.Millisecond, "without a consumer a WaitForFirstConsumer claim waits")
	got := getDV(t, "dv-keep")
	got.Spec.Source.HTTP.URL = "http://127.0.0.1:2/other.qcow2"
	require.ErrorContains(t, env.admin.Update(ctx, got), "Cannot update DataVolume Spec")
	pvc := &corev1.PersistentVolumeClaim{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Namespace: "default", Name: "dv-keep"}, pvc))
	require.Equal(t, corev1.ClaimPending, pvc.Status.Phase)
}

// An https source with its own CA (certConfigMap) and basic auth
// (secretRef) imports; without the credentials it fails with the
// server's answer.
func TestDataVolumeImportsWithCustomCAAndBasicAuth(t *testing.T) {
	node := storageNode(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, Nodes: []handler.Config{node}})
	dir := testImages(t)
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "importer" || p != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="images"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	require.NoError(t, env.admin.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "images-ca"}, Data: map[string]string{"ca.pem": string(ca)},
	}))
	defer env.admin.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "images-ca"}})
	require.NoError(t, env.admin.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "images-auth"},
		Data:       map[string][]byte{"accessKeyId": []byte("importer"), "secretKey": []byte("s3cret")},
	}))
	defer env.admin.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "images-auth"}})

	good := importDV("dv-tls", srv.URL+"/disk.qcow2", "64Mi", true)
	good.Spec.Source.HTTP.CertConfigMap, good.Spec.Source.HTTP.SecretRef = "images-ca", "images-auth"
	require.NoError(t, env.admin.Create(ctx, good))
	defer deleteDV(t, "dv-tls")
	noAuth := importDV("dv-tls-noauth", srv.URL+"/disk.qcow2", "64Mi", true)
	noAuth.Spec.Source.HTTP.CertConfigMap = "images-ca"
	require.NoError(t, env.admin.Create(ctx, noAuth))
	defer deleteDV(t, "dv-tls-noauth")

	waitDVPhase(t, "dv-tls", cdiv1.Succeeded, 2*time.Minute)
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.qcow2"), 64<<20), fileDigest(t, diskOf(t, "dv-tls")))
	failed := waitDVPhase(t, "dv-tls-noauth", cdiv1.Failed, 2*time.Minute)
	require.Contains(t, dvCondition(failed, cdiv1.DataVolumeRunning).Message, "got 401")
}
