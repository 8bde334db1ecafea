package virtapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// pngBytes stands for a PNG: virt-api passes the agent's bytes through.
const pngBytes = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

// shotAgent is a node agent whose screenshot answer is code and body; it
// records the request it got in asked.
func shotAgent(t *testing.T, code int, body string, asked *string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "Bearer t0ken", r.Header.Get("Authorization"))
		*asked = r.Method + " " + r.URL.RequestURI()
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// getScreenshotPath fetches path under the API and returns code, content type and body.
func getScreenshotPath(t *testing.T, srv *httptest.Server, path string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + "/apis/subresources.kubevirt.io/v1" + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

func TestScreenshotIsTheAgentsPNG(t *testing.T) {
	var asked string
	srv := apiWith(t, shotAgent(t, http.StatusOK, pngBytes, &asked), runningVMI())
	code, typ, body := getScreenshotPath(t, srv, "/"+vmiPath+"vnc/screenshot?moveCursor=true")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "image/png", typ)
	require.Equal(t, pngBytes, body)
	require.Equal(t, "GET /v1/namespaces/ns/virtualmachineinstances/vm/vnc/screenshot", asked,
		"moveCursor is not passed on, as upstream does not")
}

func TestScreenshotFailuresArePlainText500s(t *testing.T) {
	var asked string
	agent := shotAgent(t, http.StatusInternalServerError, "taking a screenshot of ns_vm: no screens", &asked)
	stopped := runningVMI()
	stopped.Status.Phase = kubevirtv1.Succeeded
	off := false
	headless := runningVMI()
	headless.Spec.Domain.Devices.AutoattachGraphicsDevice = &off
	for msg, vmi := range map[string]*kubevirtv1.VirtualMachineInstance{
		`virtualmachineinstance.kubevirt.io "vm" not found`: nil,
		"VMI is not running":               stopped,
		"No graphics devices are present.": headless,
		"unexpected return code 500 (500 Internal Server Error), message: taking a screenshot of ns_vm: no screens": runningVMI(),
	} {
		srv := apiWith(t, agent)
		if vmi != nil {
			srv = apiWith(t, agent, vmi)
		}
		code, typ, body := getScreenshotPath(t, srv, "/"+vmiPath+"vnc/screenshot")
		require.Equal(t, http.StatusInternalServerError, code, msg)
		require.Equal(t, "text/plain; charset=utf-8", typ, msg)
		require.Equal(t, msg, body)
	}
}

func TestScreenshotIsDiscoverable(t *testing.T) {
	_, _, body := getScreenshotPath(t, apiWith(t, &fakeAgent{}), "")
	require.Contains(t, body, `"name":"virtualmachineinstances/vnc/screenshot","singularName":"","namespaced":true,"kind":"","verbs":["get"]`)
}
