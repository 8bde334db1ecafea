package mtls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type ca struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newCA(t *testing.T) ca {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return ca{cert, key}
}

// files writes a leaf of c for usage (and dns) and c's certificate as the
// bundle, into dir.
func (c ca) files(t *testing.T, dir string, usage x509.ExtKeyUsage, dns ...string) Files {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "leaf"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, DNSNames: dns, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, key.Public(), c.key)
	require.NoError(t, err)
	kd, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	f := Files{Cert: filepath.Join(dir, "tls.crt"), Key: filepath.Join(dir, "tls.key"), CA: filepath.Join(dir, "ca.crt")}
	require.NoError(t, os.WriteFile(f.Cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(f.Key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600))
	require.NoError(t, os.WriteFile(f.CA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.cert.Raw}), 0o600))
	return f
}

// serve accepts one connection at a time, writing "ok" after the handshake.
func serve(t *testing.T, cfg *tls.Config) string {
	l, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("ok"))
			c.Close()
		}
	}()
	return l.Addr().String()
}

func dial(addr string, cfg *tls.Config) error {
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = io.ReadAll(c)
	return err
}

// Both sides must hold a certificate of the shared CA: a client of another
// CA, or a server of another CA or name, is refused.
func TestOnlyHoldersOfTheSharedCAConnect(t *testing.T) {
	dir := t.TempDir()
	shared, other := newCA(t), newCA(t)
	addr := serve(t, shared.files(t, filepath.Join(dir, "server"), x509.ExtKeyUsageServerAuth, "virt-handler").Server())
	client := shared.files(t, filepath.Join(dir, "client"), x509.ExtKeyUsageClientAuth)
	require.NoError(t, dial(addr, client.Client("virt-handler")))
	require.Error(t, dial(addr, client.Client("another-name")), "the server's name is checked")

	foreign := other.files(t, filepath.Join(dir, "foreign"), x509.ExtKeyUsageClientAuth)
	foreign.CA = client.CA
	require.Error(t, dial(addr, foreign.Client("virt-handler")), "a client certificate of another CA")
	require.Error(t, dial(addr, &tls.Config{InsecureSkipVerify: true}), "no client certificate") //nolint:gosec

	impostor := serve(t, other.files(t, filepath.Join(dir, "impostor"), x509.ExtKeyUsageServerAuth, "virt-handler").Server())
	require.Error(t, dial(impostor, client.Client("virt-handler")), "a server of another CA")
}

// A rotated certificate is used from the next handshake on.
func TestRotatedFilesAreReadAtTheNextHandshake(t *testing.T) {
	dir := t.TempDir()
	first, second := newCA(t), newCA(t)
	server := first.files(t, filepath.Join(dir, "server"), x509.ExtKeyUsageServerAuth, "virt-handler")
	addr := serve(t, server.Server())
	client := first.files(t, filepath.Join(dir, "client"), x509.ExtKeyUsageClientAuth)
	require.NoError(t, dial(addr, client.Client("virt-handler")))

	second.files(t, filepath.Join(dir, "server"), x509.ExtKeyUsageServerAuth, "virt-handler")
	require.Error(t, dial(addr, client.Client("virt-handler")), "the client still trusts the first CA only")
	second.files(t, filepath.Join(dir, "client"), x509.ExtKeyUsageClientAuth)
	require.NoError(t, dial(addr, client.Client("virt-handler")))
}
