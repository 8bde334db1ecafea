package webhookcert

import (
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func certOf(t *testing.T, p []byte) *x509.Certificate {
	b, _ := pem.Decode(p)
	require.NotNil(t, b)
	c, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	return c
}

// The client certificate is signed by the server's CA, for client
// authentication only, kept while valid and reissued when the CA rotates.
func TestEnsureClientDataFollowsTheServersCA(t *testing.T) {
	now := time.Now()
	server, client := map[string][]byte{}, map[string][]byte{}
	_, _, err := EnsureData(server, []string{"virt-handler"}, DefaultPolicy, now)
	require.NoError(t, err)
	changed, err := EnsureClientData(client, server, "virt-api", DefaultPolicy, now)
	require.NoError(t, err)
	require.True(t, changed)
	leaf := certOf(t, client[CertFile])
	require.NoError(t, leaf.CheckSignatureFrom(certOf(t, server[CAFile])))
	require.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, leaf.ExtKeyUsage)
	require.Equal(t, "virt-api", leaf.Subject.CommonName)

	changed, err = EnsureClientData(client, server, "virt-api", DefaultPolicy, now.Add(time.Hour))
	require.NoError(t, err)
	require.False(t, changed, "a valid certificate is kept")

	later := now.Add(DefaultPolicy.CADuration - DefaultPolicy.CARenewBefore + time.Minute)
	_, _, err = EnsureData(server, []string{"virt-handler"}, DefaultPolicy, later)
	require.NoError(t, err)
	changed, err = EnsureClientData(client, server, "virt-api", DefaultPolicy, later)
	require.NoError(t, err)
	require.True(t, changed)
	require.NoError(t, certOf(t, client[CertFile]).CheckSignatureFrom(certOf(t, server[CAFile])))
	require.Contains(t, string(client[BundleFile]), string(server[previousCA]), "the bundle trusts the previous CA while it is valid")

	_, err = EnsureClientData(map[string][]byte{}, map[string][]byte{}, "virt-api", DefaultPolicy, now)
	require.ErrorContains(t, err, "reading the CA of virt-api")
}
