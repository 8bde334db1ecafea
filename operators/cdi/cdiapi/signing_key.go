package cdiapi

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/kube/uploadtoken"
)

// Keys of the signing key Secret (cdi-api-signing-key): the private key
// only cdi-apiserver mounts and the public key cdi-uploadproxy and the
// nodes' upload servers verify tokens with, both PEM.
const (
	PrivateKeyFile = "id_ed25519"
	PublicKeyFile  = uploadtoken.PublicKeyFile
	// legacySeed is how earlier releases kept the key.
	legacySeed = "seed"
)

// EnsureSigningKey returns the key in data, generating one (or converting
// an earlier release's) and writing both halves into data when needed.
func EnsureSigningKey(data map[string][]byte) (ed25519.PrivateKey, error) {
	if key, err := ParsePrivateKey(data[PrivateKeyFile]); err == nil {
		return key, writePublic(data, key)
	}
	var key ed25519.PrivateKey
	if seed := data[legacySeed]; len(seed) == ed25519.SeedSize {
		key = ed25519.NewKeyFromSeed(seed)
	} else {
		var err error
		if _, key, err = ed25519.GenerateKey(rand.Reader); err != nil {
			return nil, fmt.Errorf("generating the token signing key: %w", err)
		}
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding the token signing key: %w", err)
	}
	data[PrivateKeyFile] = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	delete(data, legacySeed)
	return key, writePublic(data, key)
}

func writePublic(data map[string][]byte, key ed25519.PrivateKey) error {
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return fmt.Errorf("encoding the token verification key: %w", err)
	}
	data[PublicKeyFile] = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	return nil
}

// LoadPrivateKey reads PrivateKeyFile in dir.
func LoadPrivateKey(dir string) (ed25519.PrivateKey, error) {
	p, err := os.ReadFile(filepath.Join(dir, PrivateKeyFile))
	if err != nil {
		return nil, fmt.Errorf("reading the token signing key: %w", err)
	}
	return ParsePrivateKey(p)
}

// ParsePrivateKey reads a PEM PKCS#8 Ed25519 private key.
func ParsePrivateKey(p []byte) (ed25519.PrivateKey, error) {
	b, _ := pem.Decode(p)
	if b == nil {
		return nil, errors.New("no PEM private key")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing the token signing key: %w", err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("the token signing key is a %T, not Ed25519", k)
	}
	return key, nil
}
