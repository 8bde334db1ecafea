package uploadtoken

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// SigningKeySecret is cdi-apiserver's token signing key pair, in the
// install namespace: cdi-operator keeps it, cdi-uploadproxy and the nodes'
// upload servers mount only its public key.
const SigningKeySecret = "cdi-api-signing-key"

// KeyDir is where the signing key, or only its public half, is mounted.
const KeyDir = "/var/run/cdi/token/keys"

// The link from cdi-uploadproxy to a node's upload server is mutually
// authenticated TLS, as upstream's proxy to its upload server pods:
// cdi-operator keeps a CA, the servers' certificate (which the nodes mount)
// and the proxy's client certificate.
const (
	ServerCertsSecret = "cdi-uploadserver-certs"
	ClientCertsSecret = "cdi-uploadserver-client-certs"
	ServerCertDir     = "/var/run/cdi/uploadserver/server"
	ClientCertDir     = "/var/run/cdi/uploadserver/client"
	// ServerName is the name the servers' certificate carries and the
	// proxy verifies, whatever node and port a server listens on.
	ServerName = "cdi-uploadserver"
)

// PublicKeyFile is the verification key's file in the signing key Secret
// (cdi-api-signing-key) and in the directories it is mounted into.
const PublicKeyFile = "id_ed25519.pub"

// LoadPublicKey reads PublicKeyFile in dir.
func LoadPublicKey(dir string) (ed25519.PublicKey, error) {
	p, err := os.ReadFile(filepath.Join(dir, PublicKeyFile))
	if err != nil {
		return nil, fmt.Errorf("reading the token verification key: %w", err)
	}
	return ParsePublicKey(p)
}

// ParsePublicKey reads a PEM PKIX Ed25519 public key.
func ParsePublicKey(p []byte) (ed25519.PublicKey, error) {
	b, _ := pem.Decode(p)
	if b == nil {
		return nil, errors.New("no PEM public key")
	}
	k, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing the token verification key: %w", err)
	}
	key, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the token verification key is a %T, not Ed25519", k)
	}
	return key, nil
}
