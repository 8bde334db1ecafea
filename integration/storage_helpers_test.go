//go:build integration

package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
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
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
)

const testStorageClass = platform.HostpathStorageClass

// hostForPods is the host's address as the node's pods reach it: its
// bridge, which exists while the shared node runs.
func hostForPods() string { return platform.NodeBridge.Address.Addr().String() }

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
	// stallAt, when above zero, stops every response once that many body
	// bytes were sent in all: the connection stays open and silent, as a
	// source that stops mid-transfer, until it is set back to zero.
	stallAt atomic.Int64

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

// serveImages serves dir where importers in the node's pods reach it.
func serveImages(t *testing.T, dir string) *imageServer {
	t.Helper()
	s := &imageServer{}
	files := http.FileServer(http.Dir(dir))
	l, err := net.Listen("tcp", net.JoinHostPort(hostForPods(), "0"))
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files.ServeHTTP(&meteredWriter{ResponseWriter: w, s: s, ctx: r.Context()}, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	s.url = "http://" + l.Addr().String()
	return s
}

type meteredWriter struct {
	http.ResponseWriter
	s   *imageServer
	ctx context.Context
}

func (m *meteredWriter) Write(p []byte) (int, error) {
	for at := m.s.stallAt.Load(); at > 0 && m.s.sent.Load() >= at; at = m.s.stallAt.Load() {
		select {
		case <-m.ctx.Done():
			return 0, m.ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	m.s.throttle(len(p))
	m.s.sent.Add(int64(len(p)))
	return m.ResponseWriter.Write(p)
}

// space is a namespace that one test works in, with a client of its
// cluster.
type space struct {
	t  *testing.T
	c  crclient.Client
	ns string
}

// space gives a test a namespace of its own on the shared node.
func (u *upRun) space(t *testing.T) *space {
	return &space{t: t, c: u.c, ns: u.namespace(t)}
}

// create creates obj in the space's cluster.
func (s *space) create(obj crclient.Object) {
	s.t.Helper()
	require.NoError(s.t, s.c.Create(context.Background(), obj))
}

// key names an object of the space.
func (s *space) key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: s.ns, Name: name}
}

// importDV is a DataVolume importing url into a claim of the test class;
// immediate asks for binding without waiting for a consumer.
func (s *space) importDV(name, url, size string, immediate bool) *cdiv1.DataVolume {
	dv := &cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name, Annotations: map[string]string{}},
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

func (s *space) getDV(name string) *cdiv1.DataVolume {
	s.t.Helper()
	dv := &cdiv1.DataVolume{}
	require.NoError(s.t, s.c.Get(context.Background(), s.key(name), dv))
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

func (s *space) waitDVPhase(name string, phase cdiv1.DataVolumePhase, timeout time.Duration) *cdiv1.DataVolume {
	s.t.Helper()
	var dv *cdiv1.DataVolume
	require.Eventually(s.t, func() bool {
		dv = s.getDV(name)
		return dv.Status.Phase == phase
	}, timeout, 200*time.Millisecond, "DataVolume %s never reached %s", name, phase)
	return dv
}

// deleteDV deletes a DataVolume and waits until it is gone.
func (s *space) deleteDV(name string) {
	s.t.Helper()
	ctx := context.Background()
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name}}
	if err := s.c.Delete(ctx, dv); apierrors.IsNotFound(err) {
		return
	}
	require.Eventually(s.t, func() bool {
		return apierrors.IsNotFound(s.c.Get(ctx, s.key(name), &cdiv1.DataVolume{}))
	}, time.Minute, 200*time.Millisecond, "DataVolume %s was never removed", name)
}

// diskOf is the disk image of a DataVolume's bound volume on the node.
func (s *space) diskOf(name string) string {
	s.t.Helper()
	ctx := context.Background()
	pvc := &corev1.PersistentVolumeClaim{}
	require.NoError(s.t, s.c.Get(ctx, s.key(name), pvc))
	pv := &corev1.PersistentVolume{}
	require.NoError(s.t, s.c.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, pv))
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

// tlsServer serves h over TLS where importers reach it (hostForPods), with
// a certificate of its own naming that address; Certificate is its CA.
func tlsServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "images"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP(hostForPods())}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener, err = net.Listen("tcp", net.JoinHostPort(hostForPods(), "0"))
	require.NoError(t, err)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}
