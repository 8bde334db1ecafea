package kubeapi

import (
	"net/http"
	"net/http/httputil"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/reply"
	"github.com/virtflow/virtflow/console/server/session"
)

// consoleHeaders are what the browser sends to the console alone: its
// session and CSRF value are none of the apiserver's business.
var consoleHeaders = []string{"Cookie", session.CSRFHeader}

// Proxy forwards /api and /apis requests, websocket upgrades included
// (watch, and virt-api's console and vnc subresources in whatever
// subprotocol the page asks for), as the user the request's context
// carries the token of (session.WithToken). A request reaching it without
// a token is refused, never sent on anonymously.
func (u *Upstream) Proxy() http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite:   u.rewrite,
		Transport: u.transport,
		// Watches stream: every event reaches the page at once.
		FlushInterval:  -1,
		ModifyResponse: dropAuthChallenge,
		ErrorHandler:   proxyError,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := session.Token(r.Context()); !ok {
			reply.Error(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "not logged in")
			return
		}
		rp.ServeHTTP(w, r)
	})
}

// rewrite sets the user's token and strips what must not pass: the
// console's own headers, and impersonation, which the console's pages
// never ask for, so that a request through the console acts as the
// logged-in user and no one else.
func (u *Upstream) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(u.target)
	h := pr.Out.Header
	for _, name := range consoleHeaders {
		h.Del(name)
	}
	for name := range h {
		if strings.HasPrefix(name, "Impersonate-") {
			h.Del(name)
		}
	}
	token, _ := session.Token(pr.In.Context())
	h.Set("Authorization", "Bearer "+token)
	if h.Get("Origin") != "" {
		// The console checked the page's origin; beyond it the console is
		// the origin, and a websocket server checking Origin against its
		// own host (gorilla's default) must see its own.
		h.Set("Origin", u.target.Scheme+"://"+u.target.Host)
	}
}

// dropAuthChallenge keeps a 401 from making the browser pop up its own
// password dialog; the page shows its login form instead.
func dropAuthChallenge(resp *http.Response) error {
	resp.Header.Del("WWW-Authenticate")
	return nil
}

func proxyError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the browser went away
	}
	reply.Error(w, http.StatusBadGateway, metav1.StatusReasonServiceUnavailable, "reaching the kube-apiserver: "+err.Error())
}
