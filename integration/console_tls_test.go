//go:build integration

package integration

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
)

// consoleTLS is how the tests reach the console `up` printed: its CA
// trusted, and the SPKI hash of its certificate, which Chromium is told to
// accept (a browser trusts a CA from its own store, which a test's
// throw-away profile cannot be given).
var consoleTLS struct {
	roots *x509.CertPool
	spki  string
}

// trustConsole reads the console's CA and certificate `up` issued.
func trustConsole(caFile string) error {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("reading the console's CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("no certificate in %s", caFile)
	}
	leafPEM, err := os.ReadFile(filepath.Join(filepath.Dir(caFile), "console.crt"))
	if err != nil {
		return fmt.Errorf("reading the console's certificate: %w", err)
	}
	b, _ := pem.Decode(leafPEM)
	if b == nil {
		return fmt.Errorf("the console's certificate is not PEM")
	}
	leaf, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return fmt.Errorf("parsing the console's certificate: %w", err)
	}
	sum := sha256.Sum256(leaf.RawSubjectPublicKeyInfo)
	consoleTLS.roots, consoleTLS.spki = pool, base64.StdEncoding.EncodeToString(sum[:])
	return nil
}

// consoleTransport trusts only the console's CA.
func consoleTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: consoleTLS.roots}
	return t
}
