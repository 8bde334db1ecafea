//go:build integration

package integration

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operators/cdi/cdiapi"
)

func (s *space) uploadDV(name, size string) *cdiv1.DataVolume {
	dv := s.importDV(name, "", size, true)
	dv.Spec.Source = &cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}}
	return dv
}

// uploadToken asks cdi-apiserver, through the aggregated API, for a token.
func uploadToken(t *testing.T, cfg *rest.Config, ns, pvc string) string {
	t.Helper()
	dc, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	gvr := schema.GroupVersionResource{Group: "upload.cdi.kubevirt.io", Version: "v1beta1", Resource: "uploadtokenrequests"}
	req := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "upload.cdi.kubevirt.io/v1beta1", "kind": "UploadTokenRequest",
		"metadata": map[string]any{"name": pvc, "namespace": ns}, "spec": map[string]any{"pvcName": pvc},
	}}
	got, err := dc.Resource(gvr).Namespace(ns).Create(context.Background(), req, metav1.CreateOptions{})
	require.NoError(t, err)
	token, _, _ := unstructured.NestedString(got.Object, "status", "token")
	require.NotEmpty(t, token)
	return token
}

func postUpload(t *testing.T, proxy, token string, body []byte) (int, string) {
	t.Helper()
	return postUploadFrom(t, proxy, token, bytes.NewReader(body), int64(len(body)))
}

// postUploadFrom streams size bytes of body to the proxy.
func postUploadFrom(t *testing.T, proxy, token string, body io.Reader, size int64) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, proxy+"/v1beta1/upload", body)
	require.NoError(t, err)
	req.ContentLength = size
	req.Header.Set("Authorization", "Bearer "+token)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(msg)
}

// expiredToken signs a token for pvc that expired a minute ago, with
// cdi-apiserver's own key, as a token kept too long would be.
func expiredToken(t *testing.T, c crclient.Client, ns, pvc string) string {
	t.Helper()
	sec := &corev1.Secret{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: platform.Namespace, Name: "cdi-api-signing-key"}, sec))
	key, err := cdiapi.ParsePrivateKey(sec.Data[cdiapi.PrivateKeyFile])
	require.NoError(t, err)
	tok, err := cdiapi.Signer{Key: key}.Issue(ns, pvc, time.Now().Add(-time.Hour), time.Minute)
	require.NoError(t, err)
	return tok
}

// uploadProxyURL waits until CDIConfig names the upload proxy and its CA,
// and returns the proxy's URL.
func uploadProxyURL(t *testing.T, c crclient.Client) string {
	cfg := &cdiv1.CDIConfig{}
	require.Eventually(t, func() bool {
		return c.Get(context.Background(), types.NamespacedName{Name: "config"}, cfg) == nil &&
			cfg.Status.UploadProxyURL != nil && cfg.Status.UploadProxyCA != nil
	}, time.Minute, 200*time.Millisecond, "CDIConfig names the upload proxy and its CA")
	return *cfg.Status.UploadProxyURL
}

// Only a valid, unexpired token for this claim gets an upload through;
// the upload lands as the disk's raw content.
func TestUploadNeedsAValidTokenForTheClaim(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := testImages(t)
	image, err := os.ReadFile(filepath.Join(dir, "disk.qcow2"))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.c.Create(ctx, s.uploadDV("dv-upload", "64Mi")))
	defer s.deleteDV("dv-upload")
	require.NoError(t, s.c.Create(ctx, s.importDV("dv-not-upload", "http://127.0.0.1:1/x.qcow2", "64Mi", false)))
	defer s.deleteDV("dv-not-upload")
	s.waitDVPhase("dv-upload", cdiv1.UploadReady, time.Minute)
	proxy := uploadProxyURL(t, s.c)

	code, msg := postUpload(t, proxy, "not-a-token", image)
	require.Equal(t, http.StatusUnauthorized, code, msg)
	code, msg = postUpload(t, proxy, expiredToken(t, s.c, s.ns, "dv-upload"), image)
	require.Equal(t, http.StatusUnauthorized, code, msg)
	require.Contains(t, msg, "token expired")
	code, msg = postUpload(t, proxy, uploadToken(t, n.cfg, s.ns, "dv-not-upload"), image)
	require.Equal(t, http.StatusForbidden, code, msg)
	require.Equal(t, cdiv1.UploadReady, s.getDV("dv-upload").Status.Phase, "refused uploads change nothing")

	code, msg = postUpload(t, proxy, uploadToken(t, n.cfg, s.ns, "dv-upload"), image)
	require.Equal(t, http.StatusOK, code, msg)
	dv := s.waitDVPhase("dv-upload", cdiv1.Succeeded, time.Minute)
	require.Equal(t, "Upload Complete", dvCondition(dv, cdiv1.DataVolumeRunning).Message)
	recordHistory(t, n.tc, "workflows/cdi/testdata/upload_completed.json", cdic.UploadWorkflowID(string(dv.UID)))
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.qcow2"), 64<<20), fileDigest(t, s.diskOf("dv-upload")))
}

// virtctl image-upload creates the DataVolume, gets a token, finds the
// proxy and its CA in CDIConfig (no --insecure, no URL), streams the image
// and waits until it is processed.
func TestVirtctlImageUpload(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	uploadProxyURL(t, s.c)
	dir := testImages(t)
	out, err := n.virtctl(s.ns, "image-upload", "dv", "dv-virtctl", "--size", "64Mi", "--image-path", filepath.Join(dir, "image-a"),
		"--force-bind", "--storage-class", platform.HostpathStorageClass)
	require.NoError(t, err, out)
	defer s.deleteDV("dv-virtctl")
	require.Contains(t, out, "Uploading data completed successfully")
	require.Contains(t, out, "Processing completed successfully")
	require.Equal(t, cdiv1.Succeeded, s.getDV("dv-virtctl").Status.Phase)
	require.Equal(t, referenceDigest(t, filepath.Join(dir, "disk.raw"), 64<<20), fileDigest(t, s.diskOf("dv-virtctl")),
		"the xz-compressed raw image was written as its content")
}
