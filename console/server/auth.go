package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/reply"
	"github.com/virtflow/virtflow/console/server/session"
)

// maxBody bounds the bodies the console itself reads (a login, a list of
// access checks); what goes to the apiserver is the apiserver's to bound.
const maxBody = 64 << 10

// Me answers a login and GET /auth/me.
type Me struct {
	User kubeapi.User `json:"user"`
	// CSRFToken is what state-changing requests repeat in X-CSRF-Token;
	// empty when the request authenticated with a bearer header.
	CSRFToken string `json:"csrfToken,omitempty"`
	// Expires is when the login ends.
	Expires *time.Time `json:"expires,omitempty"`
}

// login answers POST /auth/login: a token in a JSON body {"token": ...}
// or a form field "token", proved valid by asking the apiserver whom it
// authenticates as, then kept in the session cookie.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if err := session.CheckOrigin(r); err != nil {
		reply.Error(w, http.StatusForbidden, metav1.StatusReasonForbidden, err.Error())
		return
	}
	token, err := loginToken(w, r)
	if err != nil {
		reply.Error(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}
	user, err := s.up.WhoAmI(r.Context(), token)
	if err != nil {
		s.apiserverError(w, r, err)
		return
	}
	sess, err := session.New(token, s.cfg.SessionTTL, s.sealer.Now())
	if err == nil {
		err = s.sealer.SetCookies(w, r, sess)
	}
	if errors.Is(err, session.ErrTooLong) {
		reply.Error(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	} else if err != nil {
		reply.Error(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
		return
	}
	s.cfg.Log.Info("login", "user", user.Username)
	reply.JSON(w, http.StatusOK, Me{User: user, CSRFToken: sess.CSRF, Expires: &sess.Expires})
}

// loginToken reads the token, with or without a "Bearer " prefix.
func loginToken(w http.ResponseWriter, r *http.Request) (string, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	var token string
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var body struct {
			Token string `json:"token"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil && !errors.Is(err, io.EOF) {
			return "", errors.New("the body is not JSON of the form {\"token\": \"...\"}")
		}
		token = body.Token
	case "application/x-www-form-urlencoded", "multipart/form-data":
		token = r.FormValue("token")
	default:
		return "", errors.New("send the token as JSON {\"token\": \"...\"} or as the form field \"token\"")
	}
	token = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(token), "Bearer "))
	if token == "" {
		return "", errors.New("a bearer token is needed")
	}
	return token, nil
}

// me answers GET /auth/me with whom the session acts as, asking the
// apiserver again, so an expired or revoked token shows at once.
func (s *Server) me(w http.ResponseWriter, r *http.Request) {
	token, _ := session.Token(r.Context())
	user, err := s.up.WhoAmI(r.Context(), token)
	if err != nil {
		s.apiserverError(w, r, err)
		return
	}
	me := Me{User: user}
	if sess, err := s.sealer.FromRequest(r); err == nil {
		me.CSRFToken, me.Expires = sess.CSRF, &sess.Expires
	}
	reply.JSON(w, http.StatusOK, me)
}

// logout answers POST /auth/logout by dropping the cookies; the token
// itself stays valid, as it was the user's before they logged in.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if sess, err := s.sealer.FromRequest(r); err == nil {
		if err := session.CheckCSRF(r, sess); err != nil {
			reply.Error(w, http.StatusForbidden, metav1.StatusReasonForbidden, err.Error())
			return
		}
	}
	session.ClearCookies(w, r)
	w.WriteHeader(http.StatusNoContent)
}

// authed admits a request that carries a session cookie (then a
// state-changing one must carry the CSRF header) or an Authorization
// bearer header (scripts: no browser attaches one on its own, so no
// CSRF check is needed), and gives the handler the token.
func (s *Server) authed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, err := s.identify(r)
		var csrf csrfError
		switch {
		case errors.As(err, &csrf):
			reply.Error(w, http.StatusForbidden, metav1.StatusReasonForbidden, err.Error())
			return
		case err != nil:
			if !errors.Is(err, session.ErrNoSession) {
				session.ClearCookies(w, r) // unreadable or expired: the browser may drop it
			}
			reply.Error(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, err.Error())
			return
		}
		if err := session.CheckOrigin(r); err != nil && (r.Header.Get("Upgrade") != "" || !session.Safe(r.Method)) {
			reply.Error(w, http.StatusForbidden, metav1.StatusReasonForbidden, err.Error())
			return
		}
		h.ServeHTTP(w, r.WithContext(session.WithToken(r.Context(), token)))
	})
}

// identify returns the request's token; with a cookie, after the CSRF
// check.
func (s *Server) identify(r *http.Request) (string, error) {
	sess, err := s.sealer.FromRequest(r)
	if errors.Is(err, session.ErrNoSession) {
		if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && token != "" {
			return token, nil
		}
		return "", err
	}
	if err != nil {
		return "", err
	}
	if err := session.CheckCSRF(r, sess); err != nil {
		return "", csrfError{err}
	}
	return sess.Token, nil
}

// csrfError is a refused CSRF check: the session itself is fine.
type csrfError struct{ error }

// apiserverError answers for a failed WhoAmI or access review: 401 (and
// the cookies dropped) when the apiserver refused the token.
func (s *Server) apiserverError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, kubeapi.ErrUnauthorized) {
		session.ClearCookies(w, r)
		reply.Error(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "the kube-apiserver did not accept the token: log in again")
		return
	}
	reply.Error(w, http.StatusBadGateway, metav1.StatusReasonServiceUnavailable, err.Error())
}
