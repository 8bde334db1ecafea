package uploadtoken

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTokensAreScopedSignedAndShortLived(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	now := time.Unix(1_800_000_000, 0)
	tok, err := Issue(priv, "ns1", "disk", now, TTL)
	require.NoError(t, err)

	c, err := Verify(pub, tok, now.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, Claims{Operation: "Upload", Namespace: "ns1", Name: "disk", Resource: "persistentvolumeclaims",
		IssuedAt: now.Unix(), Expiry: now.Add(5 * time.Minute).Unix()}, c)

	_, err = Verify(pub, tok, now.Add(5*time.Minute))
	require.ErrorIs(t, err, ErrExpired)

	otherPub, _, _ := ed25519.GenerateKey(nil)
	_, err = Verify(otherPub, tok, now)
	require.ErrorIs(t, err, ErrInvalid, "another key's token")
	tampered := []byte(tok)
	tampered[3] ^= 1
	_, err = Verify(pub, string(tampered), now)
	require.ErrorIs(t, err, ErrInvalid, "a changed payload")
	_, err = Verify(pub, "garbage", now)
	require.ErrorIs(t, err, ErrInvalid)
}
