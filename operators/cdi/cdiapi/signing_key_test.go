package cdiapi

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/kube/uploadtoken"
)

func TestEnsureSigningKeyIsStableAndItsPublicHalfVerifiesTokens(t *testing.T) {
	data := map[string][]byte{}
	key, err := EnsureSigningKey(data)
	require.NoError(t, err)
	again, err := EnsureSigningKey(data)
	require.NoError(t, err)
	require.True(t, key.Equal(again), "a second call keeps the key")

	pub, err := uploadtoken.ParsePublicKey(data[PublicKeyFile])
	require.NoError(t, err)
	now := time.Now()
	token, err := Signer{Key: key}.Issue("ns", "dv", now, TokenTTL)
	require.NoError(t, err)
	_, err = uploadtoken.Verify(pub, token, now)
	require.NoError(t, err)

	_, other, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	forged, err := Signer{Key: other}.Issue("ns", "dv", now, TokenTTL)
	require.NoError(t, err)
	_, err = uploadtoken.Verify(pub, forged, now)
	require.ErrorIs(t, err, uploadtoken.ErrInvalid)
}

func TestEnsureSigningKeyConvertsAnEarlierSeed(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 7
	data := map[string][]byte{"seed": seed}
	key, err := EnsureSigningKey(data)
	require.NoError(t, err)
	require.True(t, key.Equal(ed25519.NewKeyFromSeed(seed)), "tokens issued before still verify")
	require.NotContains(t, data, "seed")
	parsed, err := ParsePrivateKey(data[PrivateKeyFile])
	require.NoError(t, err)
	require.True(t, key.Equal(parsed))
}
