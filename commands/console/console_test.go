package console

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/console/server/kubeapi/kubeapitest"
)

// kubeconfig writes a kubeconfig for the stand-in holding the console's
// own token, which the console must not use.
func kubeconfig(t *testing.T, api *kubeapitest.APIServer) string {
	ca := base64.StdEncoding.EncodeToString(api.Config().CAData)
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: u, user: {token: %s}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, api.URL, ca, kubeapitest.ServerToken)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

func get(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestTheCommandServesUntilItsContextEnds(t *testing.T) {
	api := kubeapitest.New(t, map[string]string{"alice-token": "alice"}, nil)
	addr, metrics := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	assets := fstest.MapFS{"index.html": {Data: []byte("<html>console</html>")}}
	go func() {
		done <- Main(ctx, []string{"--listen", addr, "--metrics-listen", metrics, "--kubeconfig", kubeconfig(t, api),
			"--temporal-address", ""}, assets)
	}()
	require.Eventually(t, func() bool {
		code, _, err := get("http://" + addr + "/readyz")
		return err == nil && code == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond)

	code, page, err := get("http://" + addr + "/vms")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "<html>console</html>", page)
	_, info, err := get("http://" + addr + "/console/info")
	require.NoError(t, err)
	assert.Contains(t, info, `"operations":false`)

	resp, err := http.Post("http://"+addr+"/auth/login", "application/json", strings.NewReader(`{"token":"alice-token"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	for _, a := range api.Authorizations() {
		assert.NotContains(t, a, kubeapitest.ServerToken)
	}
	_, m, err := get("http://" + metrics + "/metrics")
	require.NoError(t, err)
	assert.Contains(t, m, `route="POST /auth/login"`)

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not stop")
	}
}

func TestATakenPortFailsTheCommand(t *testing.T) {
	api := kubeapitest.New(t, nil, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	err = Main(context.Background(), []string{"--listen", l.Addr().String(), "--metrics-listen", "", "--kubeconfig", kubeconfig(t, api)}, nil)
	assert.ErrorContains(t, err, "listening on "+l.Addr().String())
}

func TestInAPodOnlyTheServiceAddressAndTheCAAreNeeded(t *testing.T) {
	api := kubeapitest.New(t, map[string]string{"alice-token": "alice"}, nil)
	u, err := url.Parse(api.URL)
	require.NoError(t, err)
	t.Setenv("KUBERNETES_SERVICE_HOST", u.Hostname())
	t.Setenv("KUBERNETES_SERVICE_PORT", u.Port())
	ca := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(ca, api.Config().CAData, 0o600))

	cfg, err := apiserver(options{apiserverCA: ca})
	require.NoError(t, err)
	assert.Equal(t, api.URL, cfg.Host)
	assert.Empty(t, cfg.BearerToken, "no service account token is read")

	_, err = apiserver(options{apiserverCA: filepath.Join(t.TempDir(), "missing")})
	assert.ErrorContains(t, err, "CA")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, err = apiserver(options{apiserverCA: ca})
	assert.ErrorContains(t, err, "--kubeconfig")
}
