// Package cdiapi is cdi-apiserver's aggregated API upload.cdi.kubevirt.io:
// it issues the short-lived, signed tokens that let one upload reach one
// claim through cdi-uploadproxy.
package cdiapi

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// TokenTTL is how long an upload token is valid, as CDI's.
const TokenTTL = 5 * time.Minute

// OperationUpload is the only operation a token grants here.
const OperationUpload = "Upload"

// Errors of token verification; the proxy answers both with 401.
var (
	ErrTokenInvalid = errors.New("invalid token")
	ErrTokenExpired = errors.New("token expired")
)

// Claims say which claim a token may upload into, and until when.
type Claims struct {
	Operation string `json:"operation"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Resource  string `json:"resource"`
	IssuedAt  int64  `json:"iat"`
	Expiry    int64  `json:"exp"`
}

// Signer issues tokens with cdi-apiserver's private key; the proxy
// verifies them with the public half.
type Signer struct {
	Key ed25519.PrivateKey
}

// Issue signs an upload token for namespace/name valid for ttl from now.
func (s Signer) Issue(namespace, name string, now time.Time, ttl time.Duration) (string, error) {
	c := Claims{Operation: OperationUpload, Namespace: namespace, Name: name, Resource: "persistentvolumeclaims",
		IssuedAt: now.Unix(), Expiry: now.Add(ttl).Unix()}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encoding token claims: %w", err)
	}
	sig := ed25519.Sign(s.Key, payload)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(sig), nil
}

// Verify checks a token's signature and expiry and returns its claims.
func Verify(pub ed25519.PublicKey, token string, now time.Time) (Claims, error) {
	var c Claims
	enc := base64.RawURLEncoding
	p, s, ok := strings.Cut(token, ".")
	payload, err1 := enc.DecodeString(p)
	sig, err2 := enc.DecodeString(s)
	if !ok || err1 != nil || err2 != nil || !ed25519.Verify(pub, payload, sig) {
		return c, ErrTokenInvalid
	}
	if err := json.Unmarshal(payload, &c); err != nil || c.Operation != OperationUpload {
		return c, ErrTokenInvalid
	}
	if now.Unix() >= c.Expiry {
		return c, ErrTokenExpired
	}
	return c, nil
}
