package generatesshkeys

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
)

// parsePair checks the public key file names the private key's public
// half and returns the public key.
func parsePair(t *testing.T, keys *keyPair, signer ssh.Signer) ssh.PublicKey {
	t.Helper()
	pub, _, _, rest, err := ssh.ParseAuthorizedKey([]byte(keys.publicKey))
	require.NoError(t, err)
	assert.Empty(t, rest)
	assert.Equal(t, signer.PublicKey().Marshal(), pub.Marshal())
	assert.Equal(t, ssh.FingerprintSHA256(pub), keys.fingerprint)
	return pub
}

func TestGeneratedKeysInOpenSSHFormat(t *testing.T) {
	for _, spec := range []keySpec{
		{keyType: "ed25519", bits: 256, comment: "root@generated"},
		{keyType: "ecdsa", bits: 384, comment: "root@generated"},
		{keyType: "rsa", bits: 1024, comment: "root@generated"},
	} {
		keys, err := generateKeyPair(spec)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(keys.privateKey, "-----BEGIN OPENSSH PRIVATE KEY-----\n"), spec.keyType)
		signer, err := ssh.ParsePrivateKey([]byte(keys.privateKey))
		require.NoError(t, err)
		pub := parsePair(t, keys, signer)
		assert.True(t, strings.HasSuffix(keys.publicKey, " root@generated\n"), keys.publicKey)
		want := map[string]string{"ed25519": ssh.KeyAlgoED25519, "ecdsa": ssh.KeyAlgoECDSA384, "rsa": ssh.KeyAlgoRSA}[spec.keyType]
		assert.Equal(t, want, pub.Type())
	}
}

func TestRSAKeySize(t *testing.T) {
	keys, err := generateKeyPair(keySpec{keyType: "rsa", bits: 2048})
	require.NoError(t, err)
	block, _ := pem.Decode([]byte(keys.privateKey))
	require.NotNil(t, block)
	signer, err := ssh.ParsePrivateKey([]byte(keys.privateKey))
	require.NoError(t, err)
	cpk := signer.PublicKey().(ssh.CryptoPublicKey).CryptoPublicKey()
	assert.Equal(t, 2048, cpk.(interface{ Size() int }).Size()*8)
	assert.NotContains(t, keys.publicKey, "  ")
	assert.True(t, strings.HasPrefix(keys.publicKey, "ssh-rsa ") && strings.Count(keys.publicKey, " ") == 1, "no comment, no trailing blank")
}

func TestAPassphraseEncryptsThePrivateKey(t *testing.T) {
	keys, err := generateKeyPair(keySpec{keyType: "ed25519", bits: 256, passphrase: "pw", comment: "c"})
	require.NoError(t, err)
	_, err = ssh.ParsePrivateKey([]byte(keys.privateKey))
	var missing *ssh.PassphraseMissingError
	require.ErrorAs(t, err, &missing)
	signer, err := ssh.ParsePrivateKeyWithPassphrase([]byte(keys.privateKey), []byte("pw"))
	require.NoError(t, err)
	parsePair(t, keys, signer)
}

func TestPEMAndPKCS8Formats(t *testing.T) {
	cases := []struct {
		spec   keySpec
		header string
	}{
		{keySpec{keyType: "rsa", bits: 1024, format: "PEM"}, "RSA PRIVATE KEY"},
		{keySpec{keyType: "ecdsa", bits: 256, format: "PEM"}, "EC PRIVATE KEY"},
		{keySpec{keyType: "ecdsa", bits: 521, format: "PKCS8"}, "PRIVATE KEY"},
		{keySpec{keyType: "ed25519", bits: 256, format: "PEM"}, "OPENSSH PRIVATE KEY"},
	}
	for _, tc := range cases {
		keys, err := generateKeyPair(tc.spec)
		require.NoError(t, err)
		block, _ := pem.Decode([]byte(keys.privateKey))
		require.NotNil(t, block)
		assert.Equal(t, tc.header, block.Type)
		signer, err := ssh.ParsePrivateKey([]byte(keys.privateKey))
		require.NoError(t, err, tc.header)
		parsePair(t, keys, signer)
		if tc.header == "PRIVATE KEY" {
			key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			require.NoError(t, err)
			assert.Equal(t, 521, key.(*ecdsa.PrivateKey).Curve.Params().BitSize)
		}
	}
}
