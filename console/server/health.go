package server

import (
	"context"
	"io/fs"
	"net/http"
	"time"
)

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// readyz is ready while the kube-apiserver answers and the page's bundle
// is there: without either the console can do nothing. Temporal is left
// out on purpose; without it only the operations view fails, and it says
// why.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !s.bundled() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(NotBuilt))
		return
	}
	if err := s.up.Reachable(ctx); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(err.Error() + "\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// bundled says the page's bundle has its index.html.
func (s *Server) bundled() bool {
	if s.cfg.Assets == nil {
		return false
	}
	_, err := fs.Stat(s.cfg.Assets, "index.html")
	return err == nil
}
