package console

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
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

// servingPair writes a self-signed certificate for 127.0.0.1 and returns
// its files and a client trusting it.
func servingPair(t *testing.T) (certFile, keyFile string, hc *http.Client) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	kd, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600))
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// consoleClient reaches the console under test over TLS.
var consoleClient = http.DefaultClient

func get(url string) (int, string, error) {
	resp, err := consoleClient.Get(url)
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
	certFile, keyFile, hc := servingPair(t)
	go func() {
		done <- Main(ctx, []string{"--listen", addr, "--metrics-listen", metrics, "--kubeconfig", kubeconfig(t, api),
			"--temporal-address", "", "--tls-cert-file", certFile, "--tls-private-key-file", keyFile}, assets)
	}()
	consoleClient = hc
	defer func() { consoleClient = http.DefaultClient }()
	require.Eventually(t, func() bool {
		code, _, err := get("https://" + addr + "/readyz")
		return err == nil && code == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond)
	_, _, err := get("http://" + addr + "/readyz")
	require.NoError(t, err, "a plain request is answered with a refusal, not served")
	code, _, _ := get("http://" + addr + "/vms")
	assert.Equal(t, http.StatusBadRequest, code, "plain HTTP is not served")

	code, page, err := get("https://" + addr + "/vms")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "<html>console</html>", page)
	_, info, err := get("https://" + addr + "/console/info")
	require.NoError(t, err)
	assert.Contains(t, info, `"operations":false`)

	resp, err := hc.Post("https://"+addr+"/auth/login", "application/json", strings.NewReader(`{"token":"alice-token"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	for _, a := range api.Authorizations() {
		assert.NotContains(t, a, kubeapitest.ServerToken)
	}
	consoleClient = http.DefaultClient
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
