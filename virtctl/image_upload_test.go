package virtctl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	uploadv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/upload/v1beta1"
)

func TestImageUploadRejectsBadArgs(t *testing.T) {
	img, _ := writeImage(t, 10)
	empty := filepath.Join(t.TempDir(), "empty.img")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	ok := []string{"--image-path", img, "--size", "1Gi"}
	cases := map[string][]string{
		"expecting two args":               append([]string{"dv"}, ok...),
		"invalid resource type vm":         append([]string{"vm", "disk"}, ok...),
		"invalid DataVolume name \"Disk\"": append([]string{"dv", "Disk"}, ok...),
		"uploading to a bare PVC is not supported yet; use: virtctl image-upload dv disk": append([]string{"pvc", "disk"}, ok...),
		"--image-path is required":                                   {"dv", "disk", "--size", "1Gi"},
		"when creating a DataVolume, the size must be specified":     {"dv", "disk", "--image-path", img},
		"validation failed for size=lots":                            {"dv", "disk", "--image-path", img, "--size", "lots"},
		"no such file or directory":                                  {"dv", "disk", "--image-path", img + ".missing", "--size", "1Gi"},
		"is not a regular file":                                      {"dv", "disk", "--image-path", t.TempDir(), "--size", "1Gi"},
		"is empty":                                                   {"dv", "disk", "--image-path", empty, "--size", "1Gi"},
		"invalid volume mode 'ext4'":                                 append([]string{"dv", "disk", "--volume-mode", "ext4"}, ok...),
		"incompatible --volume-mode 'filesystem' and --block-volume": append([]string{"dv", "disk", "--volume-mode", "filesystem", "--block-volume"}, ok...),
		"cannot upload to a readonly volume":                         append([]string{"dv", "disk", "--access-mode", "ReadOnlyMany"}, ok...),
		"invalid access mode \"RWO\"":                                append([]string{"dv", "disk", "--access-mode", "RWO"}, ok...),
		"flag provided but not defined: -pvc-name":                   append([]string{"dv", "disk", "--pvc-name", "x"}, ok...),
	}
	for want, args := range cases {
		// Main checks the flags before it needs a kubeconfig.
		err := Main(context.Background(), append([]string{"--kubeconfig", "/nonexistent", "image-upload"}, args...), &bytes.Buffer{})
		require.ErrorContains(t, err, want, "args %v", args)
	}
	_, err := parseUploadFlags([]string{"dv", "disk", "--no-create", "--image-path", img}, "ns")
	require.NoError(t, err, "an existing DataVolume needs no size")
}

func TestImageUploadDataVolumeFromFlags(t *testing.T) {
	img, _ := writeImage(t, 10)
	f, err := parseUploadFlags([]string{"dv", "win-disk", "--size=64Mi", "--image-path", img, "-n", "apps",
		"--storage-class", "hostpath-csi", "--access-mode", "ReadWriteOnce", "--volume-mode", "block", "--force-bind"}, "default")
	require.NoError(t, err)
	require.Equal(t, "apps", f.namespace, "-n after the verb wins, as with kubectl")
	dv, err := f.dataVolume(f.namespace)
	require.NoError(t, err)
	require.Equal(t, "cdi.kubevirt.io/v1beta1", dv.APIVersion)
	require.Equal(t, "DataVolume", dv.Kind)
	require.Equal(t, "win-disk", dv.Name)
	require.Equal(t, "apps", dv.Namespace)
	require.Equal(t, map[string]string{"cdi.kubevirt.io/storage.bind.immediate.requested": "true"}, dv.Annotations)
	require.NotNil(t, dv.Spec.Source.Upload)
	s := dv.Spec.Storage
	require.Equal(t, "64Mi", s.Resources.Requests.Storage().String())
	require.Equal(t, "hostpath-csi", *s.StorageClassName)
	require.Equal(t, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, s.AccessModes)
	require.Equal(t, corev1.PersistentVolumeBlock, *s.VolumeMode)

	data, err := json.Marshal(dv)
	require.NoError(t, err)
	require.Contains(t, string(data), `"source":{"upload":{}}`)
}

func TestImageUploadDataVolumeDefaultsLeaveChoicesToCDI(t *testing.T) {
	img, _ := writeImage(t, 10)
	f, err := parseUploadFlags([]string{"dv", "disk", "--size", "1Gi", "--image-path", img}, "ns")
	require.NoError(t, err)
	dv, err := f.dataVolume("ns")
	require.NoError(t, err)
	require.Nil(t, dv.Annotations)
	require.Nil(t, dv.Spec.Storage.StorageClassName, "the default class")
	require.Empty(t, dv.Spec.Storage.AccessModes, "the storage profile decides")
	require.Nil(t, dv.Spec.Storage.VolumeMode, "the storage profile decides")

	for args, want := range map[string]corev1.PersistentVolumeMode{
		"--volume-mode=filesystem": corev1.PersistentVolumeFilesystem,
		"--volume-mode=Block":      corev1.PersistentVolumeBlock,
		"--block-volume":           corev1.PersistentVolumeBlock,
	} {
		f, err := parseUploadFlags([]string{"dv", "disk", "--size", "1Gi", "--image-path", img, args}, "ns")
		require.NoError(t, err)
		dv, err := f.dataVolume("ns")
		require.NoError(t, err)
		require.Equal(t, want, *dv.Spec.Storage.VolumeMode, args)
	}
}

func TestUploadReadyPhases(t *testing.T) {
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Name: "disk", Namespace: "ns"}}
	check := func(phase cdiv1.DataVolumePhase, forceBind bool) (bool, error) {
		dv.Status.Phase = phase
		return uploadReady(dv, forceBind)
	}
	ready, err := check(cdiv1.UploadReady, false)
	require.True(t, ready)
	require.NoError(t, err)
	ready, err = check(cdiv1.Pending, false)
	require.False(t, ready)
	require.NoError(t, err)
	_, err = check(cdiv1.WaitForFirstConsumer, false)
	require.EqualError(t, err, "cannot upload to DataVolume in WaitForFirstConsumer state, make sure the PVC is Bound, or use force-bind flag")
	_, err = check(cdiv1.WaitForFirstConsumer, true)
	require.NoError(t, err, "with --force-bind the binding is on its way")

	dv.Status.Conditions = []cdiv1.DataVolumeCondition{
		{Type: cdiv1.DataVolumeBound, Message: "PVC disk Bound"},
		{Type: cdiv1.DataVolumeRunning, Reason: "Error", Message: "Upload pod failed: no space left on device"},
	}
	_, err = check(cdiv1.Failed, false)
	require.EqualError(t, err, "DataVolume ns/disk failed: Upload pod failed: no space left on device")
}

// fakeCluster serves the API calls image-upload makes, plus a TLS upload
// proxy whose CA CDIConfig publishes.
type fakeCluster struct {
	mu       sync.Mutex
	phases   []cdiv1.DataVolumePhase // returned by successive reads; the last repeats
	after    cdiv1.DataVolumePhase   // once the proxy has the data
	existing bool
	created  *cdiv1.DataVolume
	tokenFor string
	proxy    *httptest.Server
	got      *received
}

func (c *fakeCluster) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /apis/storage.k8s.io/v1/storageclasses/{name}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("name") != "hostpath-csi" {
			apiStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound)
			return
		}
		apiObject(w, http.StatusOK, map[string]any{"kind": "StorageClass"})
	})
	mux.HandleFunc("POST /apis/cdi.kubevirt.io/v1beta1/namespaces/ns/datavolumes", func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		exists := c.existing
		c.mu.Unlock()
		if exists {
			apiStatus(w, http.StatusConflict, metav1.StatusReasonAlreadyExists)
			return
		}
		dv := &cdiv1.DataVolume{}
		require.NoError(t, json.NewDecoder(r.Body).Decode(dv))
		c.mu.Lock()
		c.created, c.existing = dv, true
		c.mu.Unlock()
		apiObject(w, http.StatusCreated, dv)
	})
	mux.HandleFunc("GET /apis/cdi.kubevirt.io/v1beta1/namespaces/ns/datavolumes/disk", c.getDataVolume)
	mux.HandleFunc("POST /apis/upload.cdi.kubevirt.io/v1beta1/namespaces/ns/uploadtokenrequests", func(w http.ResponseWriter, r *http.Request) {
		req := &uploadv1.UploadTokenRequest{}
		require.NoError(t, json.NewDecoder(r.Body).Decode(req))
		require.Equal(t, "UploadTokenRequest", req.Kind)
		c.mu.Lock()
		c.tokenFor = req.Namespace + "/" + req.Spec.PvcName
		c.mu.Unlock()
		req.Status.Token = "tok"
		apiObject(w, http.StatusCreated, req)
	})
	mux.HandleFunc("GET /apis/cdi.kubevirt.io/v1beta1/cdiconfigs/config", func(w http.ResponseWriter, _ *http.Request) {
		cfg := &cdiv1.CDIConfig{Status: cdiv1.CDIConfigStatus{UploadProxyURL: &c.proxy.URL}}
		ca := serverCA(c.proxy)
		cfg.Status.UploadProxyCA = &ca
		apiObject(w, http.StatusOK, cfg)
	})
	return mux
}

func (c *fakeCluster) getDataVolume(w http.ResponseWriter, _ *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.existing {
		apiStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound)
		return
	}
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Name: "disk", Namespace: "ns"},
		Spec: cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{Upload: &cdiv1.DataVolumeSourceUpload{}}}}
	dv.Status.Phase = c.phases[0]
	if len(c.phases) > 1 {
		c.phases = c.phases[1:]
	}
	c.got.mu.Lock()
	uploaded := c.got.body != nil
	c.got.mu.Unlock()
	if uploaded {
		dv.Status.Phase = c.after
		dv.Status.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Message: "Unable to convert: not a disk image"}}
	}
	apiObject(w, http.StatusOK, dv)
}

func apiObject(w http.ResponseWriter, code int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(obj)
}

func apiStatus(w http.ResponseWriter, code int, reason metav1.StatusReason) {
	apiObject(w, code, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: string(reason)})
}

// runAgainst runs image-upload with args against c, as `virtctl` would,
// and returns what it printed on stdout and stderr.
func runAgainst(t *testing.T, c *fakeCluster, args ...string) (string, string, error) {
	t.Helper()
	old := uploadPollInterval
	uploadPollInterval = 10 * time.Millisecond
	t.Cleanup(func() { uploadPollInterval = old })
	c.proxy, c.got = fakeProxy(t)
	api := httptest.NewServer(c.handler(t))
	t.Cleanup(api.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: %q}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: fake, context: {cluster: fake, user: me, namespace: ns}}]
current-context: fake
`, api.URL)), 0o600))
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "{proxy}", c.proxy.URL)
	}
	f, err := parseUploadFlags(args, "")
	require.NoError(t, err)
	client, _, namespace, err := connect(kubeconfig, f.namespace, "")
	require.NoError(t, err)
	var out, progress bytes.Buffer
	u := &uploader{client: client, namespace: namespace, flags: f, out: &out, progress: &progress}
	err = u.run(context.Background())
	return out.String(), progress.String(), err
}

func TestImageUploadAgainstFakeCluster(t *testing.T) {
	img, data := writeImage(t, 1<<20)
	c := &fakeCluster{phases: []cdiv1.DataVolumePhase{"", cdiv1.Pending, cdiv1.UploadReady}, after: cdiv1.Succeeded}
	out, progress, err := runAgainst(t, c, "dv", "disk", "--size", "64Mi", "--image-path", img,
		"--force-bind", "--storage-class", "hostpath-csi")
	require.NoError(t, err)
	require.Equal(t, "true", c.created.Annotations[forceBindAnnotation])
	require.Equal(t, "ns/disk", c.tokenFor)
	require.True(t, bytes.Equal(data, c.got.body))
	require.Contains(t, progress, "100%")
	require.Equal(t, strings.Join([]string{
		"DataVolume ns/disk created",
		"Waiting for PVC disk upload pod to be ready...",
		"Pod now ready",
		"Uploading data to " + c.proxy.URL,
		"Uploading data completed successfully, waiting for processing to complete, you can hit ctrl-c without interrupting the progress",
		"Processing completed successfully",
		"Uploading " + img + " completed successfully",
		"",
	}, "\n"), out)
}

func TestImageUploadFailures(t *testing.T) {
	img, _ := writeImage(t, 1024)
	base := []string{"dv", "disk", "--size", "64Mi", "--image-path", img}
	cases := []struct {
		name    string
		cluster *fakeCluster
		args    []string
		want    string
	}{
		{"exists", &fakeCluster{existing: true, phases: []cdiv1.DataVolumePhase{cdiv1.UploadReady}}, base, "DataVolume disk already exists"},
		{"missing with --no-create", &fakeCluster{phases: []cdiv1.DataVolumePhase{cdiv1.UploadReady}}, []string{"dv", "disk", "--no-create", "--image-path", img}, "DataVolume ns/disk not found"},
		{"unknown class", &fakeCluster{phases: []cdiv1.DataVolumePhase{cdiv1.UploadReady}}, append(base, "--storage-class", "nope"), "storage class nope not found"},
		{"wffc", &fakeCluster{phases: []cdiv1.DataVolumePhase{cdiv1.WaitForFirstConsumer}}, base, "make sure the PVC is Bound, or use force-bind flag"},
		{"timeout", &fakeCluster{phases: []cdiv1.DataVolumePhase{cdiv1.Pending}}, append(base, "--wait-secs", "0"), `timed out after 0s waiting for DataVolume ns/disk to reach phase UploadReady (last phase "Pending")`},
		{"conversion fails", &fakeCluster{phases: []cdiv1.DataVolumePhase{cdiv1.UploadReady}, after: cdiv1.Failed}, base, "DataVolume ns/disk failed: Unable to convert: not a disk image"},
		{"explicit proxy URL", &fakeCluster{phases: []cdiv1.DataVolumePhase{cdiv1.UploadReady}}, append(base, "--uploadproxy-url", "https://127.0.0.1:1", "--insecure"), "connection refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runAgainst(t, tc.cluster, tc.args...)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestImageUploadToExistingDataVolume(t *testing.T) {
	img, _ := writeImage(t, 1024)
	c := &fakeCluster{existing: true, phases: []cdiv1.DataVolumePhase{cdiv1.UploadReady}, after: cdiv1.Succeeded}
	out, _, err := runAgainst(t, c, "dv", "disk", "--no-create", "--image-path", img)
	require.NoError(t, err)
	require.Nil(t, c.created)
	require.True(t, strings.HasPrefix(out, "Using existing PVC ns/disk\nUploading data to "), out)
}

func TestImageUploadExplicitProxyURLStillTrustsTheConfiguredCA(t *testing.T) {
	img, _ := writeImage(t, 1024)
	c := &fakeCluster{phases: []cdiv1.DataVolumePhase{cdiv1.UploadReady}, after: cdiv1.Succeeded}
	out, _, err := runAgainst(t, c, "dv", "disk", "--size", "1Mi", "--image-path", img, "--uploadproxy-url", "{proxy}/v1beta1/upload")
	require.NoError(t, err)
	require.Contains(t, out, "Uploading data to https://127.0.0.1:")
	require.Equal(t, "/v1beta1/upload", c.got.path, "the upload path is not doubled")
}
