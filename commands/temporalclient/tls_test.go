package temporalclient

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// issuer is a test CA.
type issuer struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	dir  string
	n    int64
}

func newIssuer(t *testing.T) *issuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	is := &issuer{cert: cert, key: key, dir: t.TempDir(), n: 1}
	require.NoError(t, os.WriteFile(is.path("ca.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	return is
}

func (is *issuer) path(name string) string { return filepath.Join(is.dir, name) }

// issue writes name.crt and name.key for cn, a server's for 127.0.0.1 when
// server, and returns the serial.
func (is *issuer) issue(t *testing.T, name, cn string, server bool) *big.Int {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	is.n++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(is.n), Subject: pkix.Name{CommonName: cn}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	if server {
		tmpl.ExtKeyUsage, tmpl.IPAddresses = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, []net.IP{net.ParseIP("127.0.0.1")}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, is.cert, key.Public(), is.key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(is.path(name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	require.NoError(t, os.WriteFile(is.path(name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	return tmpl.SerialNumber
}

// serve accepts mTLS connections of is's clients and reports each
// client certificate's serial.
func serve(t *testing.T, is *issuer) (string, <-chan *big.Int) {
	is.issue(t, "server", "server", true)
	pair, err := tls.LoadX509KeyPair(is.path("server.crt"), is.path("server.key"))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(is.cert)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	serials := make(chan *big.Int, 4)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			tc := conn.(*tls.Conn)
			if tc.Handshake() == nil {
				serials <- tc.ConnectionState().PeerCertificates[0].SerialNumber
			}
			conn.Close()
		}
	}()
	return l.Addr().String(), serials
}

func TestTheClientPresentsTheCertificateOnDiskAtEachHandshake(t *testing.T) {
	is := newIssuer(t)
	addr, serials := serve(t, is)
	first := is.issue(t, "client", "virtflow-console", false)
	cfg, err := TLS{Cert: is.path("client.crt"), Key: is.path("client.key"), CA: is.path("ca.crt")}.Config()
	require.NoError(t, err)
	handshake := func() *big.Int {
		conn, err := tls.Dial("tcp", addr, cfg)
		require.NoError(t, err)
		defer conn.Close()
		select {
		case s := <-serials:
			return s
		case <-time.After(5 * time.Second):
			t.Fatal("the server accepted no client certificate")
			return nil
		}
	}
	require.Equal(t, first, handshake())
	rotated := is.issue(t, "client", "virtflow-console", false)
	require.Equal(t, rotated, handshake(), "a rotated certificate is used without a restart")
}

func TestTLSIsOffWithoutFlagsAndRefusesHalfASetting(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var off TLS
	off.AddFlags(fs)
	require.NoError(t, fs.Parse(nil))
	cfg, err := off.Config()
	require.NoError(t, err)
	require.Nil(t, cfg, "no flag dials in plaintext")

	is := newIssuer(t)
	is.issue(t, "client", "x", false)
	for _, bad := range []TLS{
		{Cert: is.path("client.crt")},
		{Key: is.path("client.key")},
		{ServerName: "temporal"},
		{Cert: is.path("client.crt"), Key: is.path("client.key"), CA: is.path("missing.crt")},
		{Cert: is.path("missing.crt"), Key: is.path("client.key")},
		{CA: is.path("client.key")},
	} {
		_, err := bad.Config()
		require.Error(t, err, "%+v", bad)
	}
	cfg, err = TLS{CA: is.path("ca.crt"), ServerName: "temporal"}.Config()
	require.NoError(t, err)
	require.Equal(t, "temporal", cfg.ServerName)
	require.Nil(t, cfg.GetClientCertificate, "a CA alone verifies the server without a client certificate")
	opts, err := TLS{CA: is.path("ca.crt")}.Options("127.0.0.1:7233", "virtflow")
	require.NoError(t, err)
	require.NotNil(t, opts.ConnectionOptions.TLS)
	require.Equal(t, "127.0.0.1:7233", opts.HostPort)
}
