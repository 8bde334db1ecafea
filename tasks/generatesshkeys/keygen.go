package generatesshkeys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// keyPair is a generated key in ssh-keygen's file formats.
type keyPair struct {
	// privateKey is the private key file's content.
	privateKey string
	// publicKey is the .pub file's: "<type> <base64> <comment>\n".
	publicKey string
	// fingerprint is the public key's SHA256 fingerprint.
	fingerprint string
}

// generateKeyPair makes the key spec asks for, as ssh-keygen writes it.
func generateKeyPair(spec keySpec) (*keyPair, error) {
	signer, err := newPrivateKey(spec)
	if err != nil {
		return nil, fmt.Errorf("generating the %s key: %w", spec.keyType, err)
	}
	pub, err := ssh.NewPublicKey(signer.Public())
	if err != nil {
		return nil, fmt.Errorf("encoding the public key: %w", err)
	}
	private, err := encodePrivateKey(signer, spec)
	if err != nil {
		return nil, fmt.Errorf("encoding the private key: %w", err)
	}
	public := strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(pub)), "\n")
	if spec.comment != "" {
		public += " " + spec.comment
	}
	return &keyPair{privateKey: private, publicKey: public + "\n", fingerprint: ssh.FingerprintSHA256(pub)}, nil
}

func newPrivateKey(spec keySpec) (crypto.Signer, error) {
	switch spec.keyType {
	case "rsa":
		return rsa.GenerateKey(rand.Reader, spec.bits)
	case "ecdsa":
		curve := map[int]elliptic.Curve{256: elliptic.P256(), 384: elliptic.P384(), 521: elliptic.P521()}[spec.bits]
		return ecdsa.GenerateKey(curve, rand.Reader)
	default:
		_, key, err := ed25519.GenerateKey(rand.Reader)
		return key, err
	}
}

// encodePrivateKey writes key in spec's format: OpenSSH's own (encrypted
// with the passphrase when there is one), or PEM (PKCS#1 for RSA, SEC 1
// for ECDSA) or PKCS#8; ed25519 keys are always OpenSSH's, as ssh-keygen
// writes them.
func encodePrivateKey(key crypto.Signer, spec keySpec) (string, error) {
	var block *pem.Block
	var err error
	switch {
	case spec.format == "" || spec.keyType == "ed25519":
		if spec.passphrase != "" {
			block, err = ssh.MarshalPrivateKeyWithPassphrase(key, spec.comment, []byte(spec.passphrase))
		} else {
			block, err = ssh.MarshalPrivateKey(key, spec.comment)
		}
	case spec.format == "PKCS8":
		var der []byte
		der, err = x509.MarshalPKCS8PrivateKey(key)
		block = &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	case spec.keyType == "rsa":
		block = &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key.(*rsa.PrivateKey))}
	default:
		var der []byte
		der, err = x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
		block = &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
	}
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(block)), nil
}
