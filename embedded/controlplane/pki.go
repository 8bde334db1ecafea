package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// certValidity is long because the embedded control plane is a developer
// cluster whose data directory may be resumed months later.
const certValidity = 10 * 365 * 24 * time.Hour

// authority is a CA that signs leaf certificates.
type authority struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// leafSpec names a certificate to issue.
type leafSpec struct {
	file   string
	cn     string
	orgs   []string
	server bool
	dns    []string
	ips    []net.IP
}

// ensurePKI creates, once, every key and certificate the control plane needs
// under dir, the API server's for apiserverIPs. Existing files are reused so
// a resumed cluster keeps its identity and service-account tokens stay
// valid; only a server certificate that lacks a name it must carry is
// issued again.
func ensurePKI(dir string, apiserverIPs []net.IP) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating pki directory: %w", err)
	}
	ca, err := ensureCA(dir, "ca", "virtflow-ca")
	if err != nil {
		return err
	}
	frontProxy, err := ensureCA(dir, "front-proxy-ca", "virtflow-front-proxy-ca")
	if err != nil {
		return err
	}
	leaves := []leafSpec{
		{file: "apiserver", cn: "kube-apiserver", server: true,
			dns: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
			ips: apiserverIPs},
		{file: "admin", cn: "virtflow-admin", orgs: []string{"system:masters"}},
		{file: "controller-manager", cn: "system:kube-controller-manager"},
		{file: "scheduler", cn: "system:kube-scheduler"},
		{file: "virtflow", cn: "system:serviceaccount:kubevirt-hyperconverged:virtflow", orgs: []string{"system:serviceaccounts", "system:serviceaccounts:kubevirt-hyperconverged"}},
		// kube-apiserver's identity towards kubelets (logs, exec, port-forward).
		{file: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"}},
		// kube-proxy's identity, bound by the default system:node-proxier binding.
		{file: "kube-proxy", cn: "system:kube-proxy"},
	}
	for _, l := range leaves {
		if err := ensureLeaf(dir, ca, l); err != nil {
			return err
		}
	}
	if err := ensureLeaf(dir, frontProxy, leafSpec{file: "front-proxy-client", cn: "front-proxy-client"}); err != nil {
		return err
	}
	return ensureServiceAccountKey(filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub"))
}

func ensureCA(dir, name, cn string) (*authority, error) {
	certPath, keyPath := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if a, err := loadAuthority(certPath, keyPath); err == nil {
		return a, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating %s key: %w", name, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("self-signing %s: %w", name, err)
	}
	if err := writePair(certPath, keyPath, der, key); err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	return &authority{cert: cert, key: key}, nil
}

func ensureLeaf(dir string, ca *authority, spec leafSpec) error {
	certPath, keyPath := filepath.Join(dir, spec.file+".crt"), filepath.Join(dir, spec.file+".key")
	if covers(certPath, spec) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating %s key: %w", spec.file, err)
	}
	usage := x509.ExtKeyUsageClientAuth
	if spec.server {
		usage = x509.ExtKeyUsageServerAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: spec.cn, Organization: spec.orgs},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(certValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, DNSNames: spec.dns, IPAddresses: spec.ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return fmt.Errorf("signing %s: %w", spec.file, err)
	}
	return writePair(certPath, keyPath, der, key)
}

// covers reports whether the certificate at path exists and names every
// address and DNS name spec asks for.
func covers(path string, spec leafSpec) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return false
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return false
	}
	for _, ip := range spec.ips {
		if !slices.ContainsFunc(cert.IPAddresses, ip.Equal) {
			return false
		}
	}
	for _, name := range spec.dns {
		if !slices.Contains(cert.DNSNames, name) {
			return false
		}
	}
	return true
}

func ensureServiceAccountKey(keyPath, pubPath string) error {
	if _, err := os.Stat(keyPath); err == nil {
		return nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generating service account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return fmt.Errorf("encoding service account public key: %w", err)
	}
	if err := writePEM(pubPath, "PUBLIC KEY", pub, 0o644); err != nil {
		return err
	}
	return writePEM(keyPath, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key), 0o600)
}

func loadAuthority(certPath, keyPath string) (*authority, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, fmt.Errorf("%s or %s is not PEM", certPath, keyPath)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", certPath, err)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", keyPath, err)
	}
	return &authority{cert: cert, key: key}, nil
}

func writePair(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) error {
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding key for %s: %w", certPath, err)
	}
	if err := writePEM(keyPath, "EC PRIVATE KEY", keyDER, 0o600); err != nil {
		return err
	}
	return writePEM(certPath, "CERTIFICATE", der, 0o644)
}

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	data := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}
