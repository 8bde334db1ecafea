package session

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSealThenOpenGivesTheSessionBack(t *testing.T) {
	s, err := NewSealer()
	require.NoError(t, err)
	sess, err := New("user-token", time.Hour, time.Now())
	require.NoError(t, err)
	sealed, err := s.Seal(sess)
	require.NoError(t, err)
	assert.NotContains(t, sealed, "user-token", "the token is sealed, not merely encoded")

	got, err := s.Open(sealed)
	require.NoError(t, err)
	assert.Equal(t, "user-token", got.Token)
	assert.Equal(t, sess.CSRF, got.CSRF)
}

func TestAnotherKeyOrATamperedCookieDoesNotOpen(t *testing.T) {
	a, err := NewSealer()
	require.NoError(t, err)
	b, err := NewSealer()
	require.NoError(t, err)
	sess, err := New("user-token", time.Hour, time.Now())
	require.NoError(t, err)
	sealed, err := a.Seal(sess)
	require.NoError(t, err)

	_, err = b.Open(sealed)
	assert.ErrorIs(t, err, ErrInvalid, "a restarted console's key")
	flipped := []byte(sealed)
	flipped[len(flipped)/2] ^= 1
	_, err = a.Open(string(flipped))
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = a.Open("not base64 !")
	assert.ErrorIs(t, err, ErrInvalid)
}

func TestAnExpiredSessionDoesNotOpen(t *testing.T) {
	s, err := NewSealer()
	require.NoError(t, err)
	now := time.Now()
	sess, err := New("user-token", time.Minute, now)
	require.NoError(t, err)
	sealed, err := s.Seal(sess)
	require.NoError(t, err)
	s.Now = func() time.Time { return now.Add(2 * time.Minute) }
	_, err = s.Open(sealed)
	assert.ErrorIs(t, err, ErrExpired)
}

func TestCookiesAreHttpOnlyStrictAndComeBack(t *testing.T) {
	s, err := NewSealer()
	require.NoError(t, err)
	sess, err := New("user-token", time.Hour, time.Now())
	require.NoError(t, err)
	w := httptest.NewRecorder()
	require.NoError(t, s.SetCookies(w, httptest.NewRequest(http.MethodPost, "/auth/login", nil), sess))

	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	for _, c := range w.Result().Cookies() {
		assert.Equal(t, http.SameSiteStrictMode, c.SameSite, c.Name)
		assert.Equal(t, c.Name == CookieName, c.HttpOnly, c.Name)
		assert.Positive(t, c.MaxAge)
		r.AddCookie(c)
	}
	got, err := s.FromRequest(r)
	require.NoError(t, err)
	assert.Equal(t, "user-token", got.Token)

	_, err = s.FromRequest(httptest.NewRequest(http.MethodGet, "/", nil))
	assert.ErrorIs(t, err, ErrNoSession)
}

func TestATokenTooLongForACookieIsRefused(t *testing.T) {
	s, err := NewSealer()
	require.NoError(t, err)
	sess, err := New(strings.Repeat("x", 4000), time.Hour, time.Now())
	require.NoError(t, err)
	err = s.SetCookies(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil), sess)
	assert.ErrorIs(t, err, ErrTooLong)
}

func TestCSRFIsNeededOnlyToChangeState(t *testing.T) {
	sess := Session{Token: "t", CSRF: "expected"}
	assert.NoError(t, CheckCSRF(httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil), sess))

	post := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/a/pods", nil)
	assert.ErrorContains(t, CheckCSRF(post, sess), CSRFHeader)
	post.Header.Set(CSRFHeader, "wrong")
	assert.Error(t, CheckCSRF(post, sess))
	post.Header.Set(CSRFHeader, "expected")
	assert.NoError(t, CheckCSRF(post, sess))
}

func TestOriginMustBeThisHostWhenGiven(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "http://console.example:8443/apis/x", nil)
	assert.NoError(t, CheckOrigin(r), "no Origin: not a browser")
	r.Header.Set("Origin", "http://console.example:8443")
	assert.NoError(t, CheckOrigin(r))
	r.Header.Set("Origin", "http://evil.example")
	assert.Error(t, CheckOrigin(r))
}
