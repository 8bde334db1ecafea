package session

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// Cookie and header names the frontend relies on.
const (
	// CookieName holds the sealed session; HttpOnly, so scripts never
	// see the token.
	CookieName = "virtflow-session"
	// CSRFCookieName holds the session's CSRF value where the page's
	// script can read it (also answered by GET /auth/me).
	CSRFCookieName = "virtflow-csrf"
	// CSRFHeader must repeat the CSRF value on every state-changing
	// request the cookie authenticates.
	CSRFHeader = "X-CSRF-Token"
)

// maxCookie keeps the sealed cookie under the 4096 bytes browsers store
// for a cookie with its name and attributes.
const maxCookie = 3900

// ErrNoSession is a request without a session cookie.
var ErrNoSession = errors.New("not logged in")

// ErrTooLong is a token too long to keep in a cookie.
var ErrTooLong = errors.New("the token is too long to keep in a browser cookie")

// SetCookies writes the sealed session and its CSRF value. Both are
// SameSite=Strict, so no other site's page makes the browser send them.
func (s *Sealer) SetCookies(w http.ResponseWriter, r *http.Request, sess Session) error {
	sealed, err := s.Seal(sess)
	if err != nil {
		return err
	}
	if len(sealed) > maxCookie {
		return ErrTooLong
	}
	maxAge := int(sess.Expires.Sub(s.Now()).Seconds())
	http.SetCookie(w, cookie(r, CookieName, sealed, maxAge, true))
	http.SetCookie(w, cookie(r, CSRFCookieName, sess.CSRF, maxAge, false))
	return nil
}

// ClearCookies tells the browser to drop both cookies.
func ClearCookies(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, cookie(r, CookieName, "", -1, true))
	http.SetCookie(w, cookie(r, CSRFCookieName, "", -1, false))
}

// cookie is Secure when the browser reached us over TLS (directly or
// through a proxy that says so): over plain HTTP a Secure cookie would
// never come back.
func cookie(r *http.Request, name, value string, maxAge int, httpOnly bool) *http.Cookie {
	return &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: httpOnly,
		SameSite: http.SameSiteStrictMode,
		Secure:   r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https",
	}
}

// FromRequest opens the request's session cookie.
func (s *Sealer) FromRequest(r *http.Request) (Session, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return Session{}, ErrNoSession
	}
	return s.Open(c.Value)
}

// Safe reports whether a method changes nothing, so that a cross-site
// request making the browser send it cannot do harm.
func Safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// CheckCSRF refuses a state-changing request whose header does not repeat
// the session's CSRF value: another site can make the browser send the
// cookie, but cannot read it to set the header.
func CheckCSRF(r *http.Request, sess Session) error {
	if Safe(r.Method) {
		return nil
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) != 1 {
		return fmt.Errorf("a %s request needs the %s header set to the %s cookie's value", r.Method, CSRFHeader, CSRFCookieName)
	}
	return nil
}

// CheckOrigin refuses a request a browser sent from a page of another
// origin: websockets are not covered by SameSite in every browser, and a
// login from another site would plant that site's session. Clients that
// are not browsers send no Origin and pass.
func CheckOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host != r.Host {
		return fmt.Errorf("origin %q is not this console's (%s)", origin, r.Host)
	}
	return nil
}

type tokenKey struct{}

// WithToken returns ctx carrying the bearer token the request acts as.
func WithToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// Token returns the bearer token the request acts as.
func Token(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(tokenKey{}).(string)
	return t, ok && t != ""
}
