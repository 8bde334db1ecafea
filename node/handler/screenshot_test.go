package handler

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// fakeLauncher serves the launcher socket of pod uid "pod-uid" under
// kubeletRoot with answer for every request.
func fakeLauncher(t *testing.T, kubeletRoot string, answer http.HandlerFunc) {
	dir := launcherpod.HostEmptyDir(kubeletRoot, "pod-uid", launcherpod.SocketsVolume)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	// The socket path is too long to listen on; its directory is not.
	t.Chdir(dir)
	ln, err := net.Listen("unix", launcherpod.SocketFile)
	require.NoError(t, err)
	srv := &http.Server{Handler: answer}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// screenshotThrough asks an agent on node1, which runs the VMI "vm",
// for its screenshot.
func screenshotThrough(t *testing.T, answer http.HandlerFunc) (int, string) {
	root := t.TempDir()
	fakeLauncher(t, root, answer)
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "vmi-uid"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm", UID: "pod-uid",
		Labels: map[string]string{kubevirtv1.CreatedByLabel: "vmi-uid"}}, Spec: corev1.PodSpec{NodeName: "node1"}}
	a := &apiServer{c: fake.NewClientBuilder().WithScheme(scheme).WithObjects(vmi, pod).Build(),
		cfg: Config{NodeName: "node1", KubeletRoot: root}, token: "t"}
	req := httptest.NewRequest(http.MethodGet, "/v1/namespaces/ns/virtualmachineinstances/vm/vnc/screenshot", nil)
	req.SetPathValue("ns", "ns")
	req.SetPathValue("name", "vm")
	req.Header.Set("Authorization", "Bearer t")
	rec := httptest.NewRecorder()
	a.screenshot(rec, req)
	body, _ := io.ReadAll(rec.Body)
	return rec.Code, string(body)
}

func TestTheAgentRelaysTheLaunchersScreenshot(t *testing.T) {
	code, body := screenshotThrough(t, func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/v1/screenshot", r.URL.Path)
		_, _ = w.Write([]byte("\x89PNG..."))
	})
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "\x89PNG...", body)
}

func TestTheAgentAnswersAFailedScreenshotWith500(t *testing.T) {
	code, body := screenshotThrough(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "No graphics devices are present.", http.StatusConflict)
	})
	require.Equal(t, http.StatusInternalServerError, code)
	require.Equal(t, "No graphics devices are present.\n", body)
}
