package temporal

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/virtflow/virtflow/contracts/temporalauth"
)

// The server's own identities, which no client is handed.
const (
	// systemIdentity is the server's system worker (schedules, batches,
	// namespace deletion) calling its own frontend.
	systemIdentity = "temporal-system"
	// webUIIdentity is the Web UI's server, which reads only.
	webUIIdentity = "temporal-web-ui"
)

// Validity: the CA outlives many restarts; leaves are re-issued by the
// start that finds them within renewBefore of their end, and the running
// server re-reads them (Global.TLS.RefreshInterval), as do the clients.
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	renewBefore  = 30 * 24 * time.Hour
)

// frontendName is the frontend's certificate's file name.
const frontendName = "frontend"

// defaultHosts are the names every frontend certificate carries: the
// loopback the server binds, and the in-cluster name deploy/base gives
// Temporal.
var defaultHosts = []string{"127.0.0.1", "localhost", "temporal-frontend.temporal.svc"}

// PKI is the Temporal CA and the certificates it signed, in one
// directory: ca.crt, frontend.crt and one <identity>.crt per client
// identity, each beside its .key.
type PKI struct{ Dir string }

// CA is the CA certificate's file.
func (p PKI) CA() string { return filepath.Join(p.Dir, "ca.crt") }

// Cert is identity's certificate file.
func (p PKI) Cert(identity string) string { return filepath.Join(p.Dir, identity+".crt") }

// Key is identity's key file.
func (p PKI) Key(identity string) string { return filepath.Join(p.Dir, identity+".key") }

// EnsurePKI creates the CA and every certificate under dir unless there,
// valid, signed by the CA and naming what they must: the frontend's
// certificate carries hosts beyond the defaults. It is idempotent.
func EnsurePKI(dir string, hosts []string) (PKI, error) {
	p := PKI{Dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, fmt.Errorf("creating the Temporal PKI directory: %w", err)
	}
	ca, err := ensureCA(p)
	if err != nil {
		return p, err
	}
	leaves := []leaf{{name: frontendName, cn: "temporal-frontend", server: true, hosts: append(append([]string{}, defaultHosts...), hosts...)}}
	for _, id := range append(temporalauth.Identities(), systemIdentity, webUIIdentity) {
		leaves = append(leaves, leaf{name: id, cn: id})
	}
	for _, l := range leaves {
		if err := ensureLeaf(p, ca, l); err != nil {
			return p, err
		}
	}
	return p, nil
}

// authority is the CA that signs the leaves.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// leaf is a certificate to issue: a client's (its CN the identity) or the
// server's (hosts its DNS names and addresses).
type leaf struct {
	name, cn string
	server   bool
	hosts    []string
}

func ensureCA(p PKI) (*authority, error) {
	keyPath := filepath.Join(p.Dir, "ca.key")
	cert, key, err := readPair(p.CA(), keyPath)
	if err == nil && time.Until(cert.NotAfter) > renewBefore {
		return &authority{cert: cert, key: key}, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the Temporal CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "virtflow-temporal-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("self-signing the Temporal CA: %w", err)
	}
	if err := writePair(p.CA(), keyPath, der, key); err != nil {
		return nil, err
	}
	cert, err = x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing the Temporal CA: %w", err)
	}
	return &authority{cert: cert, key: key}, nil
}

func ensureLeaf(p PKI, ca *authority, l leaf) error {
	certPath, keyPath := p.Cert(l.name), p.Key(l.name)
	if current(certPath, keyPath, ca, l) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating the key of %s: %w", l.name, err)
	}
	usage := x509.ExtKeyUsageClientAuth
	if l.server {
		usage = x509.ExtKeyUsageServerAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: l.cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(leafValidity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	for _, h := range l.hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return fmt.Errorf("signing the certificate of %s: %w", l.name, err)
	}
	return writePair(certPath, keyPath, der, key)
}

// current reports whether the pair on disk can stay: the CA signed it,
// it has more than renewBefore to live and names every host l needs.
func current(certPath, keyPath string, ca *authority, l leaf) bool {
	cert, _, err := readPair(certPath, keyPath)
	if err != nil || cert.CheckSignatureFrom(ca.cert) != nil || cert.Subject.CommonName != l.cn {
		return false
	}
	if time.Until(cert.NotAfter) <= renewBefore {
		return false
	}
	for _, h := range l.hosts {
		if cert.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}
