// Package server is the web console's backend: it serves the page's
// bundle, logs a user in with a bearer token, and forwards the page's
// Kubernetes requests (websockets included) to the kube-apiserver as that
// user, so RBAC decides exactly as for their kubectl. Beside that it
// answers which actions the user may take and lists the long operations
// (Temporal workflows) the user may see, with a live stream of changes.
package server

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/operations"
	"github.com/virtflow/virtflow/console/server/session"
	"github.com/virtflow/virtflow/console/server/templates"
	"github.com/virtflow/virtflow/console/server/upload"
)

// DefaultSessionTTL is how long a login lasts unless configured.
const DefaultSessionTTL = 8 * time.Hour

// Config is what the console serves and where it reaches.
type Config struct {
	// Kube locates the kube-apiserver and says how to trust it; its
	// credentials are never used.
	Kube *rest.Config
	// Temporal reads the operations; nil answers 503 on their routes.
	Temporal operations.Temporal
	// TemporalNamespace is where virtflow's workflows run.
	TemporalNamespace string
	// TemporalUI is the Temporal Web UI's base URL, for links.
	TemporalUI string
	// Assets is the page's bundle, rooted at index.html; nil or without
	// index.html the page is a placeholder saying how to build it.
	Assets fs.FS
	// SessionTTL is how long a login lasts (DefaultSessionTTL if zero).
	SessionTTL time.Duration
	// UploadProxy is where cdi-uploadproxy is and how to trust it, for
	// uploads from the browser.
	UploadProxy upload.Proxy
	// Log receives the server's own messages (slog.Default if nil).
	Log *slog.Logger
	// Registry receives the request metrics (a fresh one if nil).
	Registry *prometheus.Registry
}

// Server is the console's HTTP server, its handlers and its state.
type Server struct {
	cfg      Config
	up       *kubeapi.Upstream
	sealer   *session.Sealer
	ops      *operations.Service
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	stopping context.Context
	stop     context.CancelFunc
}

// New builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Kube == nil {
		return nil, errors.New("the console needs the kube-apiserver's address")
	}
	up, err := kubeapi.New(cfg.Kube)
	if err != nil {
		return nil, err
	}
	sealer, err := session.NewSealer()
	if err != nil {
		return nil, err
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Server{cfg: cfg, up: up, sealer: sealer, registry: cfg.Registry}
	s.stopping, s.stop = context.WithCancel(context.Background())
	if cfg.Temporal != nil {
		s.ops = &operations.Service{
			Temporal: cfg.Temporal, Namespace: cfg.TemporalNamespace, UI: cfg.TemporalUI,
			Access: up, Done: s.stopping.Done(), Log: cfg.Log,
		}
	}
	if err := s.registerMetrics(); err != nil {
		return nil, err
	}
	return s, nil
}

// Stop ends the long-lived requests (watches, websockets, the operations
// stream), which a graceful shutdown would otherwise wait for.
func (s *Server) Stop() { s.stop() }

// Handler serves the console: the page, /auth, /console, /api and /apis,
// /healthz and /readyz.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /auth/login", s.login)
	mux.Handle("GET /auth/me", s.authed(http.HandlerFunc(s.me)))
	mux.HandleFunc("POST /auth/logout", s.logout)
	proxy := s.authed(s.longLived(s.up.Proxy()))
	for _, p := range []string{"/api", "/api/", "/apis", "/apis/"} {
		mux.Handle(p, proxy)
	}
	mux.Handle("POST /console/access", s.authed(http.HandlerFunc(s.access)))
	mux.HandleFunc("GET /console/info", s.info)
	tpl := &templates.Handler{Kube: s.up}
	mux.Handle("POST /console/templates/{namespace}/{name}/process", s.authed(http.HandlerFunc(tpl.ServeProcess)))
	up := &upload.Handler{Kube: s.up, Proxy: s.cfg.UploadProxy}
	mux.Handle("POST /console/upload/{namespace}/{datavolume}", s.authed(http.HandlerFunc(up.ServeUpload)))
	mux.Handle("GET /console/operations", s.authed(s.withOperations(func(o *operations.Service) http.HandlerFunc { return o.ServeList })))
	mux.Handle("GET /console/operations/stream", s.authed(s.withOperations(func(o *operations.Service) http.HandlerFunc { return o.ServeStream })))
	mux.Handle("POST /console/operations/{id}/cancel", s.authed(s.withOperations(func(o *operations.Service) http.HandlerFunc { return o.ServeCancel })))
	for _, p := range []string{"/auth/", "/console/"} {
		mux.HandleFunc(p, notFound)
	}
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("/", s.static())
	return s.instrument(mux)
}

// longLived lets Stop end a watch or a websocket: a shutdown waits for
// requests to finish, and these would not.
func (s *Server) longLived(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Header.Get("Upgrade") != "" || q.Get("watch") == "true" || q.Get("watch") == "1" || q.Get("follow") == "true" {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(s.stopping, cancel)()
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}
