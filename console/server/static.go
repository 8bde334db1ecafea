package server

import (
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/reply"
)

// NotBuilt is the placeholder page's text when the bundle is missing.
const NotBuilt = "the console's bundle is not built: run hack/console-build.sh\n"

// static serves the bundle's files, and index.html for any other path,
// so the page's own router handles its deep links. The bundle is looked
// at on each request: a development build appearing later is served
// without a restart.
func (s *Server) static() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			reply.Error(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, r.Method+" is not served here")
			return
		}
		pageHeaders(w.Header())
		assets := s.cfg.Assets
		if assets == nil {
			notBuilt(w)
			return
		}
		index, err := fs.ReadFile(assets, "index.html")
		if err != nil {
			notBuilt(w)
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if info, err := fs.Stat(assets, name); err == nil && !info.IsDir() && name != "index.html" {
			serveAsset(w, r, assets, name)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
}

// serveAsset sends name, or its gzip-compressed sibling name.gz (written
// by the bundle's build) with Content-Encoding gzip when the browser
// accepts it and the request is not for a range.
func serveAsset(w http.ResponseWriter, r *http.Request, assets fs.FS, name string) {
	w.Header().Add("Vary", "Accept-Encoding")
	if !acceptsGzip(r.Header.Get("Accept-Encoding")) || r.Header.Get("Range") != "" {
		http.ServeFileFS(w, r, assets, name)
		return
	}
	f, err := assets.Open(name + ".gz")
	if err != nil {
		http.ServeFileFS(w, r, assets, name)
		return
	}
	defer f.Close()
	// Embedded files seek, so the compressed bytes are sent from the
	// binary without a copy per request.
	body, ok := f.(io.ReadSeeker)
	if !ok {
		http.ServeFileFS(w, r, assets, name)
		return
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Content-Encoding", "gzip")
	http.ServeContent(w, r, name, time.Time{}, body)
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed with a
// weight above zero.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.TrimSpace(coding)
		if !strings.EqualFold(coding, "gzip") && coding != "*" {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); ok {
			q, _ = strconv.ParseFloat(v, 64)
		}
		return q > 0
	}
	return false
}

// pageHeaders keep the console out of other sites' frames and stop the
// browser from guessing content types.
func pageHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("Referrer-Policy", "same-origin")
}

func notBuilt(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(NotBuilt))
}

func notFound(w http.ResponseWriter, r *http.Request) {
	reply.Error(w, http.StatusNotFound, metav1.StatusReasonNotFound, r.URL.Path+" is not a console API path")
}
