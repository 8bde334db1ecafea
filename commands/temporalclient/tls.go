// Package temporalclient is how every virtflow program proves itself to
// Temporal: the mTLS flags, and the TLS configuration they make. The
// embedded Temporal refuses a client without a certificate of its CA, and
// grants each identity (contracts/temporalauth) only its own calls.
package temporalclient

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
)

// TLS names the files of a client's certificate, its key and the CA the
// frontend's certificate is checked against. Nothing set dials in
// plaintext, which only a cluster with a plaintext Temporal has; the
// embedded mode always requires TLS.
type TLS struct {
	// Cert and Key are the client's certificate and key, read again on
	// every handshake so that a rotated Secret takes effect on the next
	// connection.
	Cert, Key string
	// CA verifies the frontend's certificate; the system's roots when
	// empty.
	CA string
	// ServerName is the name the frontend's certificate is checked
	// against; the address's host when empty.
	ServerName string
}

// AddFlags adds --temporal-tls-cert, --temporal-tls-key, --temporal-tls-ca
// and --temporal-tls-server-name to fs.
func (t *TLS) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&t.Cert, "temporal-tls-cert", "", "client certificate (PEM) for Temporal; TLS is used when it or --temporal-tls-ca is set")
	fs.StringVar(&t.Key, "temporal-tls-key", "", "the client certificate's key (PEM)")
	fs.StringVar(&t.CA, "temporal-tls-ca", "", "CA bundle (PEM) the Temporal frontend's certificate is checked against; the system's roots when empty")
	fs.StringVar(&t.ServerName, "temporal-tls-server-name", "", "name the Temporal frontend's certificate must carry; the address's host when empty")
}

// Enabled reports whether the client dials with TLS.
func (t TLS) Enabled() bool { return t.Cert != "" || t.CA != "" }

// Config is the client's TLS configuration, nil when TLS is off. It reads
// the files once to fail early on a missing or mismatched one.
func (t TLS) Config() (*tls.Config, error) {
	if !t.Enabled() {
		if t.Key != "" || t.ServerName != "" {
			return nil, errors.New("--temporal-tls-key and --temporal-tls-server-name need --temporal-tls-cert or --temporal-tls-ca")
		}
		return nil, nil
	}
	if (t.Cert == "") != (t.Key == "") {
		return nil, errors.New("--temporal-tls-cert and --temporal-tls-key go together")
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CA != "" {
		pool, err := readPool(t.CA)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if t.Cert != "" {
		if _, err := t.load(); err != nil {
			return nil, err
		}
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return t.load() }
	}
	return cfg, nil
}

// Options are the SDK's client options for the frontend at address and
// namespace, with t's TLS.
func (t TLS) Options(address, namespace string) (client.Options, error) {
	cfg, err := t.Config()
	if err != nil {
		return client.Options{}, err
	}
	return client.Options{HostPort: address, Namespace: namespace, ConnectionOptions: client.ConnectionOptions{TLS: cfg}}, nil
}

func (t TLS) load() (*tls.Certificate, error) {
	pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, fmt.Errorf("loading the Temporal client certificate %s: %w", t.Cert, err)
	}
	return &pair, nil
}

func readPool(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the Temporal CA %s: %w", path, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("the Temporal CA %s holds no PEM certificate", path)
	}
	return pool, nil
}
