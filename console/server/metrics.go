package server

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func (s *Server) registerMetrics() error {
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
	}
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "virtflow_console_http_requests_total",
		Help: "HTTP requests the console answered, by route pattern, method and status code.",
	}, []string{"route", "method", "code"})
	if err := s.registry.Register(s.requests); err != nil {
		return fmt.Errorf("registering the console's metrics: %w", err)
	}
	return nil
}

// MetricsHandler serves the Prometheus metrics, for a listener of its
// own: they are not for the console's users.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{})
}

// instrument counts each request by the mux pattern that served it, which
// the mux records on the request; the path itself would be unbounded.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		route := r.Pattern
		if route == "" {
			route = "none"
		}
		method := r.Method
		if !knownMethod(method) {
			method = "other"
		}
		s.requests.WithLabelValues(route, method, strconv.Itoa(rec.code)).Inc()
	})
}

func knownMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// recorder notes the status code; Unwrap lets the proxy and the event
// stream reach the connection's Flush, and Hijack notes an upgrade's 101,
// which the proxy writes on the hijacked connection itself.
type recorder struct {
	http.ResponseWriter
	code  int
	wrote bool
}

// WriteHeader notes the first status code written.
func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write notes that the status (200 unless written) is sent.
func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Hijack takes over the connection for a websocket.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil {
		r.code, r.wrote = http.StatusSwitchingProtocols, true
	}
	return conn, rw, err
}
