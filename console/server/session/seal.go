// Package session keeps a console user's bearer token between requests: in
// an HttpOnly cookie, sealed with AES-GCM under a key that lives only in
// the process's memory, so the browser's script never reads the token and
// nothing of it is stored on the server. A restart (a new key) logs every
// browser out; several replicas would each need the same key, which is why
// the console runs as one replica.
package session

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrInvalid is a cookie that does not open under this process's key: made
// by another process (or before a restart), or tampered with.
var ErrInvalid = errors.New("the session is not valid here: log in again")

// ErrExpired is a session past its lifetime.
var ErrExpired = errors.New("the session has expired: log in again")

// sealLabel is the AEAD's additional data: a sealed session cannot be
// passed off as anything else sealed under the same key.
var sealLabel = []byte("virtflow-console-session/v1")

// Session is what the cookie carries.
type Session struct {
	// Token is the user's bearer token, sent to the kube-apiserver.
	Token string `json:"t"`
	// CSRF is the value state-changing requests must repeat in the
	// X-CSRF-Token header.
	CSRF string `json:"c"`
	// Expires ends the session whatever the cookie's own lifetime.
	Expires time.Time `json:"e"`
}

// New starts a session for the token with a fresh CSRF value.
func New(token string, ttl time.Duration, now time.Time) (Session, error) {
	csrf, err := randomText(32)
	if err != nil {
		return Session{}, err
	}
	return Session{Token: token, CSRF: csrf, Expires: now.Add(ttl).UTC()}, nil
}

// Sealer seals and opens sessions under one key.
type Sealer struct {
	aead cipher.AEAD
	// Now is the clock sessions expire by.
	Now func() time.Time
}

// NewSealer returns a sealer under a fresh random key.
func NewSealer() (*Sealer, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("making the session key: %w", err)
	}
	return newSealer(key)
}

func newSealer(key []byte) (*Sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("making the session cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("making the session cipher: %w", err)
	}
	return &Sealer{aead: aead, Now: time.Now}, nil
}

// Seal returns the session as cookie-safe text.
func (s *Sealer) Seal(sess Session) (string, error) {
	plain, err := json.Marshal(sess)
	if err != nil {
		return "", fmt.Errorf("encoding the session: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("making a nonce: %w", err)
	}
	sealed := s.aead.Seal(nonce, nonce, plain, sealLabel)
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

// Open returns the session sealed in text, if it opens and has not
// expired.
func (s *Sealer) Open(text string) (Session, error) {
	raw, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return Session{}, ErrInvalid
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], sealLabel)
	if err != nil {
		return Session{}, ErrInvalid
	}
	var sess Session
	if err := json.Unmarshal(plain, &sess); err != nil || sess.Token == "" {
		return Session{}, ErrInvalid
	}
	if !s.Now().Before(sess.Expires) {
		return Session{}, ErrExpired
	}
	return sess, nil
}

func randomText(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
