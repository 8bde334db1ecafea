package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The push identity and the registry's serving certificate chain to the
// registry CA, which is not the cluster CA: a cluster client certificate
// does not verify against it.
func TestRegistryCredentialsHaveACAOfTheirOwn(t *testing.T) {
	cp := &ControlPlane{cfg: Config{DataDir: t.TempDir()}}
	require.NoError(t, ensurePKI(cp.path("pki"), []net.IP{net.ParseIP("127.0.0.1")}))
	creds, err := cp.RegistryCredentials(net.ParseIP("10.1.2.3"))
	require.NoError(t, err)
	caPEM, err := os.ReadFile(creds.CAFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	verify := func(cert, key string, usage x509.ExtKeyUsage) error {
		pair, err := tls.LoadX509KeyPair(cert, key)
		require.NoError(t, err)
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		require.NoError(t, err)
		_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{usage}})
		return err
	}
	require.NoError(t, verify(creds.PusherCertFile, creds.PusherKeyFile, x509.ExtKeyUsageClientAuth))
	require.NoError(t, verify(creds.CertFile, creds.KeyFile, x509.ExtKeyUsageServerAuth))
	require.Error(t, verify(cp.path("pki", "kube-proxy.crt"), cp.path("pki", "kube-proxy.key"), x509.ExtKeyUsageClientAuth))

	pair, err := tls.LoadX509KeyPair(creds.CertFile, creds.KeyFile)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	require.NoError(t, err)
	require.NoError(t, leaf.VerifyHostname("10.1.2.3"))
	require.NoError(t, leaf.VerifyHostname(RegistryServerName))

	_, err = creds.PushTransport()
	require.NoError(t, err)
}
