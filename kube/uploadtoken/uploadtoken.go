// Package uploadtoken is the upload token of upload.cdi.kubevirt.io: what
// cdi-apiserver signs, cdi-uploadproxy verifies before it forwards an
// upload, and a node's upload server verifies again before it writes a
// byte, so that only an upload the API server authorized reaches a disk.
package uploadtoken

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// TTL is how long a token is valid, as CDI's.
const TTL = 5 * time.Minute

// OperationUpload is the only operation a token grants.
const OperationUpload = "Upload"

// Errors of verification; every verifier answers them with 401.
var (
	ErrMissing = errors.New("missing upload token (Authorization: Bearer)")
	ErrInvalid = errors.New("invalid token")
	ErrExpired = errors.New("token expired")
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

// Issue signs a token for namespace/name valid for ttl from now.
func Issue(key ed25519.PrivateKey, namespace, name string, now time.Time, ttl time.Duration) (string, error) {
	c := Claims{Operation: OperationUpload, Namespace: namespace, Name: name, Resource: "persistentvolumeclaims",
		IssuedAt: now.Unix(), Expiry: now.Add(ttl).Unix()}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encoding token claims: %w", err)
	}
	sig := ed25519.Sign(key, payload)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(sig), nil
}

// Verify checks a token's signature and expiry and returns its claims.
func Verify(pub ed25519.PublicKey, token string, now time.Time) (Claims, error) {
	var c Claims
	if len(pub) != ed25519.PublicKeySize {
		// ed25519.Verify panics on a key of another size.
		return c, ErrInvalid
	}
	enc := base64.RawURLEncoding
	p, s, ok := strings.Cut(token, ".")
	payload, err1 := enc.DecodeString(p)
	sig, err2 := enc.DecodeString(s)
	if !ok || err1 != nil || err2 != nil || !ed25519.Verify(pub, payload, sig) {
		return c, ErrInvalid
	}
	if err := json.Unmarshal(payload, &c); err != nil || c.Operation != OperationUpload {
		return c, ErrInvalid
	}
	if now.Unix() >= c.Expiry {
		return c, ErrExpired
	}
	return c, nil
}

// FromRequest is the request's bearer token, verified.
func FromRequest(r *http.Request, pub ed25519.PublicKey, now time.Time) (Claims, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return Claims{}, ErrMissing
	}
	return Verify(pub, token, now)
}

// Bearer is the Authorization header value carrying token.
func Bearer(token string) string { return "Bearer " + token }
