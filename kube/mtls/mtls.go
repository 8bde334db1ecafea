// Package mtls builds the TLS configurations of a mutually authenticated
// link between two platform components (virt-api and the node agents) from
// files a Secret projects. The files are read again on every handshake, so
// a rotated Secret takes effect on the next connection without a restart.
package mtls

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// Files are one side's certificate and key and the CA bundle it trusts for
// the other side.
type Files struct {
	Cert, Key, CA string
}

// Server requires a client certificate chaining to the CA bundle.
func (f Files) Server() *tls.Config {
	return &tls.Config{
		// Said here too, for whoever checks the configuration it is given;
		// the per-handshake one below is what applies.
		MinVersion: tls.VersionTLS12, ClientAuth: tls.RequireAndVerifyClientCert,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			pair, pool, err := f.load()
			if err != nil {
				return nil, err
			}
			return &tls.Config{
				MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair},
				ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool,
			}, nil
		},
	}
}

// Client presents the certificate and accepts only a server certificate
// for serverName chaining to the CA bundle. Go verifies against roots fixed
// at configuration time, so the chain is checked here instead, with the
// bundle read at the handshake.
func (f Files) Client(serverName string) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12, ServerName: serverName,
		// Verification is not skipped: VerifyConnection does it.
		InsecureSkipVerify: true, //nolint:gosec
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
			if err != nil {
				return nil, fmt.Errorf("loading the client certificate: %w", err)
			}
			return &pair, nil
		},
		VerifyConnection: func(cs tls.ConnectionState) error {
			return f.verifyServer(cs, serverName)
		},
	}
}

func (f Files) verifyServer(cs tls.ConnectionState, serverName string) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("the server presented no certificate")
	}
	pool, err := f.pool()
	if err != nil {
		return err
	}
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	_, err = cs.PeerCertificates[0].Verify(x509.VerifyOptions{
		DNSName: serverName, Roots: pool, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		return fmt.Errorf("verifying the server certificate: %w", err)
	}
	return nil
}

func (f Files) load() (tls.Certificate, *x509.CertPool, error) {
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("loading the serving certificate: %w", err)
	}
	pool, err := f.pool()
	return pair, pool, err
}

func (f Files) pool() (*x509.CertPool, error) {
	pem, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, fmt.Errorf("reading the CA bundle: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no certificate in the CA bundle %s", f.CA)
	}
	return pool, nil
}
