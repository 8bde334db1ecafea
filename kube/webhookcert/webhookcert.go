// Package webhookcert issues and rotates the TLS certificates of virtflow's
// admission webhooks: a short-lived CA whose bundle goes into the webhook
// configurations and a serving certificate signed by it, both renewed before
// they expire, as HCO's certConfig describes.
package webhookcert

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// File names inside the certificate directory; tls.crt/tls.key are what
// controller-runtime's webhook server watches and reloads.
const (
	CAFile = "ca.crt"
	caKey  = "ca.key"
	// previousCA stays in the bundle after a CA rotation until it expires,
	// so clients holding the old bundle keep trusting the new server
	// certificate's issuer and vice versa during the switch.
	previousCA = "ca-previous.crt"
	CertFile   = "tls.crt"
	KeyFile    = "tls.key"
)

// Policy is how long certificates live and how early they are renewed.
type Policy struct {
	CADuration, CARenewBefore         time.Duration
	ServerDuration, ServerRenewBefore time.Duration
}

// DefaultPolicy matches HCO's certConfig defaults.
var DefaultPolicy = Policy{
	CADuration: 48 * time.Hour, CARenewBefore: 24 * time.Hour,
	ServerDuration: 24 * time.Hour, ServerRenewBefore: 12 * time.Hour,
}

// Ensure makes sure dir holds a valid CA and serving certificate for the
// given hosts, renewing whatever is due at now. It returns the CA bundle and
// whether anything was rewritten.
func Ensure(dir string, hosts []string, p Policy, now time.Time) ([]byte, bool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("creating webhook certificate directory: %w", err)
	}
	data := map[string][]byte{}
	for _, name := range names {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			data[name] = b
		}
	}
	before := maps.Clone(data)
	bundle, changed, err := EnsureData(data, hosts, p, now)
	if err != nil || !changed {
		return bundle, changed, err
	}
	// Keys first: a server reloads on its certificate's change and must
	// find the matching key already in place.
	for _, name := range []string{caKey, previousCA, CAFile, KeyFile, CertFile} {
		if data[name] != nil && !bytes.Equal(data[name], before[name]) {
			if err := writeAtomic(filepath.Join(dir, name), data[name]); err != nil {
				return nil, false, err
			}
		}
	}
	return bundle, true, nil
}

// names are the entries EnsureData keeps: usable as file names and as a
// Secret's keys.
var names = []string{CAFile, caKey, previousCA, CertFile, KeyFile}

// EnsureData is Ensure on a map of entries (a Secret's data), which it
// updates in place.
func EnsureData(data map[string][]byte, hosts []string, p Policy, now time.Time) ([]byte, bool, error) {
	ca, key, err := parse(data[CAFile], data[caKey])
	renewCA := err != nil || now.Add(p.CARenewBefore).After(ca.NotAfter)
	if renewCA {
		if ca != nil {
			data[previousCA] = pemCert(ca)
		}
		if ca, key, err = issue(nil, nil, "virtflow-webhook-ca", nil, now, p.CADuration, x509.ExtKeyUsageAny); err != nil {
			return nil, false, err
		}
		if err := put(data, CAFile, caKey, ca, key); err != nil {
			return nil, false, err
		}
	}
	leaf, _, err := parse(data[CertFile], data[KeyFile])
	renewLeaf := renewCA || err != nil || now.Add(p.ServerRenewBefore).After(leaf.NotAfter) ||
		leaf.CheckSignatureFrom(ca) != nil || !coversHosts(leaf, hosts)
	if renewLeaf {
		cert, lkey, err := issue(ca, key, "virtflow-webhook", hosts, now, p.ServerDuration, x509.ExtKeyUsageServerAuth)
		if err != nil {
			return nil, false, err
		}
		if err := put(data, CertFile, KeyFile, cert, lkey); err != nil {
			return nil, false, err
		}
	}
	return bundle(data, ca, now), renewCA || renewLeaf, nil
}

// coversHosts reports whether the certificate names every host.
func coversHosts(c *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if c.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

// bundle is the current CA followed by the previous one while it is valid.
func bundle(data map[string][]byte, ca *x509.Certificate, now time.Time) []byte {
	out := pemCert(ca)
	if prev := data[previousCA]; prev != nil {
		if b, _ := pem.Decode(prev); b != nil {
			if old, err := x509.ParseCertificate(b.Bytes); err == nil && now.Before(old.NotAfter) {
				out = append(out, prev...)
			}
		}
	}
	return out
}

func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// issue signs a certificate with parent, or self-signs a CA when parent is nil.
func issue(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, cn string, hosts []string, now time.Time, d time.Duration, usage x509.ExtKeyUsage) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating key for %s: %w", cn, err)
	}
	sn, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, fmt.Errorf("generating serial for %s: %w", cn, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: sn, Subject: pkix.Name{CommonName: cn},
		NotBefore: now.Add(-5 * time.Minute), NotAfter: now.Add(d),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	signer, signerKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, key.Public(), signerKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing %s: %w", cn, err)
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func put(data map[string][]byte, certName, keyName string, cert *x509.Certificate, key *ecdsa.PrivateKey) error {
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", keyName, err)
	}
	data[keyName] = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
	data[certName] = pemCert(cert)
	return nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("installing %s: %w", path, err)
	}
	return nil
}

func parse(cp, kp []byte) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, _ := pem.Decode(cp)
	kb, _ := pem.Decode(kp)
	if cb == nil || kb == nil {
		return nil, nil, errors.New("certificate or key missing or not PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing certificate: %w", err)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing key: %w", err)
	}
	return cert, key, nil
}

// SameBundle reports whether two CA bundles are byte-identical.
func SameBundle(a, b []byte) bool { return bytes.Equal(a, b) }
