package virtctl

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// screenshotAgainst runs virtctl with args against an API server whose
// screenshot answer is code and body; it returns stdout, the request URI
// the server got and virtctl's error.
func screenshotAgainst(t *testing.T, code int, body string, args ...string) (string, string, error) {
	var asked string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.RequestURI()
		if code != http.StatusOK {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(api.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: %q}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: fake, context: {cluster: fake, user: me, namespace: ns}}]
current-context: fake
`, api.URL)), 0o600))
	var out bytes.Buffer
	err := Main(context.Background(), append([]string{"--kubeconfig", kubeconfig, "vnc", "screenshot"}, args...), &out)
	return out.String(), asked, err
}

func TestVNCScreenshotWritesTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shot.png")
	out, asked, err := screenshotAgainst(t, http.StatusOK, "\x89PNG-bytes", "vm", "-f", file, "-m")
	require.NoError(t, err)
	require.Empty(t, out)
	require.Equal(t, "/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vm/vnc/screenshot?moveCursor=true", asked)
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, "\x89PNG-bytes", string(got))
}

func TestVNCScreenshotToStdout(t *testing.T) {
	out, asked, err := screenshotAgainst(t, http.StatusOK, "\x89PNG-bytes", "--file", "-", "vm")
	require.NoError(t, err)
	require.Equal(t, "\x89PNG-bytes", out)
	require.Contains(t, asked, "moveCursor=false")
}

func TestVNCScreenshotFailures(t *testing.T) {
	_, _, err := screenshotAgainst(t, http.StatusOK, "", "vm")
	require.EqualError(t, err, `required flag(s) "file" not set`)
	_, _, err = screenshotAgainst(t, http.StatusInternalServerError, "VMI is not running", "vm", "-f", "-")
	require.ErrorContains(t, err, "Can't access VMI vm: ")
	require.ErrorContains(t, err, "VMI is not running")
	_, _, err = screenshotAgainst(t, http.StatusOK, "png", "vm", "-f", filepath.Join(t.TempDir(), "no", "such", "dir.png"))
	require.ErrorContains(t, err, "Can't write image to a file: ")
}
