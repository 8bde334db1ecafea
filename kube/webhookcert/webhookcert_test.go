package webhookcert

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	b, _ := pem.Decode(data)
	require.NotNil(t, b)
	c, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	return c
}

func TestEnsureIssuesAServingCertSignedByTheBundle(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	bundle, changed, err := Ensure(dir, []string{"127.0.0.1", "hco-webhook.svc"}, DefaultPolicy, now)
	require.NoError(t, err)
	require.True(t, changed)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(bundle))
	leaf := readCert(t, filepath.Join(dir, CertFile))
	_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "hco-webhook.svc", CurrentTime: now})
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", leaf.IPAddresses[0].String())
}

func TestEnsureKeepsValidCertsAndRotatesDueOnes(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	first, _, err := Ensure(dir, []string{"127.0.0.1"}, DefaultPolicy, now)
	require.NoError(t, err)
	leaf1 := readCert(t, filepath.Join(dir, CertFile))

	again, changed, err := Ensure(dir, []string{"127.0.0.1"}, DefaultPolicy, now.Add(time.Hour))
	require.NoError(t, err)
	require.False(t, changed, "nothing is due an hour later")
	require.True(t, SameBundle(first, again))

	// 13h later the 24h serving cert is inside its 12h renew window, the CA is not.
	same, changed, err := Ensure(dir, []string{"127.0.0.1"}, DefaultPolicy, now.Add(13*time.Hour))
	require.NoError(t, err)
	require.True(t, changed)
	require.True(t, SameBundle(first, same), "CA kept")
	require.NotEqual(t, leaf1.SerialNumber, readCert(t, filepath.Join(dir, CertFile)).SerialNumber)

	// 25h later the 48h CA is inside its 24h renew window: new bundle, new leaf.
	rotated, changed, err := Ensure(dir, []string{"127.0.0.1"}, DefaultPolicy, now.Add(25*time.Hour))
	require.NoError(t, err)
	require.True(t, changed)
	require.False(t, SameBundle(first, rotated))
	require.Contains(t, string(rotated), string(first), "the previous CA stays trusted until it expires")
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(rotated))
	_, err = readCert(t, filepath.Join(dir, CertFile)).Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now.Add(25 * time.Hour)})
	require.NoError(t, err)
}

func TestPreviousCALeavesTheBundleOnceExpired(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	first, _, err := Ensure(dir, []string{"127.0.0.1"}, DefaultPolicy, now)
	require.NoError(t, err)
	second, _, err := Ensure(dir, []string{"127.0.0.1"}, DefaultPolicy, now.Add(25*time.Hour))
	require.NoError(t, err)
	require.Contains(t, string(second), string(first))
	// 49h: the first CA (48h) has expired and the second is not yet due.
	third, _, err := Ensure(dir, []string{"127.0.0.1"}, DefaultPolicy, now.Add(49*time.Hour))
	require.NoError(t, err)
	require.NotContains(t, string(third), string(first))
}

func TestEnsureDataKeepsASecretStableAndReissuesForNewHosts(t *testing.T) {
	now := time.Now()
	data := map[string][]byte{}
	bundle, changed, err := EnsureData(data, []string{"virt-api.ns.svc"}, DefaultPolicy, now)
	require.NoError(t, err)
	require.True(t, changed)
	leaf := data[CertFile]
	again, changed, err := EnsureData(data, []string{"virt-api.ns.svc"}, DefaultPolicy, now.Add(time.Hour))
	require.NoError(t, err)
	require.False(t, changed, "a valid certificate was reissued")
	require.Equal(t, bundle, again)
	_, changed, err = EnsureData(data, []string{"virt-api.other.svc"}, DefaultPolicy, now.Add(time.Hour))
	require.NoError(t, err)
	require.True(t, changed)
	require.NotEqual(t, leaf, data[CertFile], "a certificate for other hosts was kept")
	b, _ := pem.Decode(data[CertFile])
	c, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	require.NoError(t, c.VerifyHostname("virt-api.other.svc"))
}
