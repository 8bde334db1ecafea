//go:build integration

package integration

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// pushContainerDisk pushes an image holding file as /disk/disk.img to a
// registry the test runs, and returns its docker:// URL.
func pushContainerDisk(t *testing.T, srv *httptest.Server, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "disk/disk.img", Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}))
	_, err = tw.Write(data)
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	layer, err := tarball.LayerFromReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	img, err := mutate.AppendLayers(empty.Image, layer)
	require.NoError(t, err)
	host := strings.TrimPrefix(srv.URL, "https://")
	ref, err := name.ParseReference(host + "/disks/guest:v1")
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, img, remote.WithTransport(srv.Client().Transport)))
	return "docker://" + host + "/disks/guest:v1"
}

// A registry source (a containerDisk image in a registry with its own CA)
// imports the disk under /disk/ as qemu-img would convert it.
func TestDataVolumeImportsFromARegistry(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	reg := tlsServer(t, registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	dir := testImages(t)
	gz := filepath.Join(dir, "image-b")
	url := pushContainerDisk(t, reg, gz)
	ctx := context.Background()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: reg.Certificate().Raw})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "registry-ca"}, Data: map[string]string{"ca.pem": string(ca)}}
	require.NoError(t, s.c.Create(ctx, cm))
	defer s.c.Delete(ctx, cm)

	dv := s.importDV("dv-registry", "", "64Mi", true)
	dv.Spec.Source = &cdiv1.DataVolumeSource{Registry: &cdiv1.DataVolumeSourceRegistry{URL: &url, CertConfigMap: ptr.To("registry-ca")}}
	require.NoError(t, s.c.Create(ctx, dv))
	defer s.deleteDV("dv-registry")
	s.waitDVPhase("dv-registry", cdiv1.Succeeded, 2*time.Minute)
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.qcow2"), 64<<20), fileDigest(t, s.diskOf("dv-registry")),
		"the gzipped qcow2 in the image landed as its raw content")
	out, _ := exec.Command("ls", "-A", filepath.Dir(s.diskOf("dv-registry"))).Output()
	require.Equal(t, "disk.img", strings.TrimSpace(string(out)), "the pulled layer file was removed")
}
