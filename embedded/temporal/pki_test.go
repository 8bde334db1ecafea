package temporal

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/contracts/temporalauth"
)

func certOf(t *testing.T, p PKI, name string) *x509.Certificate {
	t.Helper()
	cert, _, err := readPair(p.Cert(name), p.Key(name))
	require.NoError(t, err)
	return cert
}

func TestThePKIIssuesEveryIdentityOnceAndTheFrontendItsNames(t *testing.T) {
	p, err := EnsurePKI(t.TempDir(), []string{"10.244.0.1"})
	require.NoError(t, err)
	ca, _, err := readPair(p.CA(), p.Dir+"/ca.key")
	require.NoError(t, err)
	for _, id := range append(temporalauth.Identities(), systemIdentity, webUIIdentity) {
		cert := certOf(t, p, id)
		require.Equal(t, id, cert.Subject.CommonName)
		require.NoError(t, cert.CheckSignatureFrom(ca))
		require.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, cert.ExtKeyUsage, "%s is a client", id)
	}
	frontend := certOf(t, p, frontendName)
	for _, h := range []string{"127.0.0.1", "localhost", "temporal-frontend.temporal.svc", "10.244.0.1"} {
		require.NoError(t, frontend.VerifyHostname(h))
	}
	info, err := os.Stat(p.Key(temporalauth.Admin))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "keys are the owner's only")

	again, err := EnsurePKI(p.Dir, []string{"10.244.0.1"})
	require.NoError(t, err)
	require.Equal(t, frontend.SerialNumber, certOf(t, again, frontendName).SerialNumber, "a second run keeps what is valid")
	require.Equal(t, certOf(t, p, temporalauth.Console).SerialNumber, certOf(t, again, temporalauth.Console).SerialNumber)
}

func TestThePKIReissuesWhatNoLongerFits(t *testing.T) {
	p, err := EnsurePKI(t.TempDir(), nil)
	require.NoError(t, err)
	console := certOf(t, p, temporalauth.Console)

	_, err = EnsurePKI(p.Dir, []string{"10.244.0.7"})
	require.NoError(t, err)
	require.NoError(t, certOf(t, p, frontendName).VerifyHostname("10.244.0.7"), "a new address is added to the frontend's certificate")

	ca, err := ensureCA(p)
	require.NoError(t, err)
	writeExpiring(t, p, ca, temporalauth.Console)
	_, err = EnsurePKI(p.Dir, nil)
	require.NoError(t, err)
	renewed := certOf(t, p, temporalauth.Console)
	require.NotEqual(t, console.SerialNumber, renewed.SerialNumber)
	require.Greater(t, time.Until(renewed.NotAfter), renewBefore, "a certificate about to expire is renewed")

	require.NoError(t, os.Remove(p.CA()))
	_, err = EnsurePKI(p.Dir, nil)
	require.NoError(t, err)
	newCA, _, err := readPair(p.CA(), p.Dir+"/ca.key")
	require.NoError(t, err)
	require.NoError(t, certOf(t, p, temporalauth.Console).CheckSignatureFrom(newCA), "a new CA re-issues every certificate")
	require.NoError(t, certOf(t, p, frontendName).CheckSignatureFrom(newCA))
}

// writeExpiring replaces identity's certificate by one that ends in a day.
func writeExpiring(t *testing.T, p PKI, ca *authority, identity string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: identity},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	require.NoError(t, err)
	require.NoError(t, writePair(p.Cert(identity), p.Key(identity), der, key))
}
