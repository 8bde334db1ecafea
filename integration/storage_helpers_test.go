//go:build integration

package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/embedded/platform"
)

const testStorageClass = platform.HostpathStorageClass

// hostpathStorage creates the HostPathProvisioner (one pool) and its
// WaitForFirstConsumer StorageClass, as virtflow up does.
func hostpathStorage(t *testing.T) {
	t.Helper()
	require.NoError(t, platform.EnsureHostpathStorage(context.Background(), env.admin))
}

// imageServer serves dir on loopback, counting the body bytes sent; a
// non-zero rate (bytes per second) throttles all responses together, since
// a reader may fetch ranges over several connections at once.
type imageServer struct {
	url  string
	sent atomic.Int64
	rate atomic.Int64

	mu       sync.Mutex
	nextFree time.Time
}

// throttle waits until n more bytes fit the shared rate.
func (s *imageServer) throttle(n int) {
	rate := s.rate.Load()
	if rate <= 0 {
		return
	}
	s.mu.Lock()
	start := time.Now()
	if s.nextFree.After(start) {
		start = s.nextFree
	}
	s.nextFree = start.Add(time.Duration(float64(n) / float64(rate) * float64(time.Second)))
	until := s.nextFree
	s.mu.Unlock()
	time.Sleep(time.Until(until))
}

func serveImages(t *testing.T, dir string) *imageServer {
	t.Helper()
	s := &imageServer{}
	files := http.FileServer(http.Dir(dir))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files.ServeHTTP(&meteredWriter{ResponseWriter: w, s: s}, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	s.url = "http://" + l.Addr().String()
	return s
}

type meteredWriter struct {
	http.ResponseWriter
	s *imageServer
}

func (m *meteredWriter) Write(p []byte) (int, error) {
	m.s.throttle(len(p))
	m.s.sent.Add(int64(len(p)))
	return m.ResponseWriter.Write(p)
}

// importDV is a DataVolume importing url into a claim of the test class;
// immediate asks for binding without waiting for a consumer.
func importDV(name, url, size string, immediate bool) *cdiv1.DataVolume {
	dv := &cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: map[string]string{}},
		Spec: cdiv1.DataVolumeSpec{
			Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}},
			Storage: &cdiv1.StorageSpec{
				StorageClassName: ptr.To(testStorageClass),
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
			},
		},
	}
	if immediate {
		dv.Annotations["cdi.kubevirt.io/storage.bind.immediate.requested"] = "true"
	}
	return dv
}

func getDV(t *testing.T, name string) *cdiv1.DataVolume {
	t.Helper()
	dv := &cdiv1.DataVolume{}
	require.NoError(t, env.admin.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: name}, dv))
	return dv
}

func dvCondition(dv *cdiv1.DataVolume, typ cdiv1.DataVolumeConditionType) cdiv1.DataVolumeCondition {
	for _, c := range dv.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return cdiv1.DataVolumeCondition{}
}

func waitDVPhase(t *testing.T, name string, phase cdiv1.DataVolumePhase, timeout time.Duration) *cdiv1.DataVolume {
	t.Helper()
	var dv *cdiv1.DataVolume
	require.Eventually(t, func() bool {
		dv = getDV(t, name)
		return dv.Status.Phase == phase
	}, timeout, 200*time.Millisecond, "DataVolume %s never reached %s", name, phase)
	return dv
}

// deleteDV deletes a DataVolume and waits until it and its volume are gone.
func deleteDV(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	if err := env.admin.Delete(ctx, dv); apierrors.IsNotFound(err) {
		return
	}
	require.Eventually(t, func() bool {
		err := env.admin.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, &cdiv1.DataVolume{})
		return apierrors.IsNotFound(err)
	}, time.Minute, 200*time.Millisecond, "DataVolume %s was never removed", name)
}

// diskOf is the disk image of a DataVolume's bound volume on the node.
func diskOf(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	pvc := &corev1.PersistentVolumeClaim{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, pvc))
	pv := &corev1.PersistentVolume{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, pv))
	return filepath.Join(pv.Spec.CSI.VolumeAttributes["path"], "disk.img")
}

// referenceDigest is qemu-img convert of the source to raw, grown to size
// bytes, as the imported disk must be.
func referenceDigest(t *testing.T, src string, size int64) string {
	t.Helper()
	ref := filepath.Join(t.TempDir(), "ref.raw")
	out, err := exec.Command("qemu-img", "convert", "-O", "raw", src, ref).CombinedOutput()
	require.NoError(t, err, "%s", out)
	st, err := os.Stat(ref)
	require.NoError(t, err)
	if st.Size() < size {
		require.NoError(t, os.Truncate(ref, size))
	}
	return fileDigest(t, ref)
}

func fileDigest(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}
