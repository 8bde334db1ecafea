// Package uploadproxy is cdi-uploadproxy: it takes a user's image with an
// upload token, checks the token names this claim and has not expired,
// and streams the image, with the token, to the upload server on the
// claim's node, which it finds in the upload workflow's progress: state
// only the platform writes, never an annotation a namespace editor can.
package uploadproxy

import (
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/uploadtoken"
)

// Paths of the upload API, as cdi-uploadproxy serves them.
const (
	UploadPath          = "/v1beta1/upload"
	UploadAsyncPath     = "/v1beta1/upload-async"
	UploadFormPath      = "/v1beta1/upload-form"
	UploadFormAsyncPath = "/v1beta1/upload-form-async"
)

// Proxy forwards authorized uploads to the node's upload server.
type Proxy struct {
	// Client reads the token's DataVolume.
	Client client.Client
	// Workflows reads the DataVolume's upload workflow, whose memo holds
	// its upload server's address.
	Workflows Workflows
	// PublicKey verifies cdi-apiserver's tokens.
	PublicKey ed25519.PublicKey
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Transport reaches upload servers; one without keep-alive when nil.
	Transport http.RoundTripper
	// TLS, when set, is the proxy's side of the upload servers' mutual
	// TLS; every deployed proxy sets it (only simulated nodes of one test
	// process speak plain HTTP).
	TLS *tls.Config
}

// Handler returns the HTTP handler.
func (p *Proxy) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("OK")) })
	for _, path := range []string{UploadPath, UploadAsyncPath} {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { p.upload(w, r, r.Body, r.ContentLength) })
	}
	for _, path := range []string{UploadFormPath, UploadFormAsyncPath} {
		mux.HandleFunc("POST "+path, p.uploadForm)
	}
	return mux
}

func (p *Proxy) uploadForm(w http.ResponseWriter, r *http.Request) {
	mr, err := r.MultipartReader()
	if err != nil {
		http.Error(w, "expecting a multipart form: "+err.Error(), http.StatusBadRequest)
		return
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			http.Error(w, "the form has no \"file\" part", http.StatusBadRequest)
			return
		}
		if part.FormName() == "file" {
			p.upload(w, r, part, -1)
			return
		}
		_, _ = io.Copy(io.Discard, part)
	}
}

// upload authorizes the request and streams body, with the token it
// carried, to the DataVolume's upload server.
func (p *Proxy) upload(w http.ResponseWriter, r *http.Request, body io.Reader, length int64) {
	claims, code, err := p.authorize(r)
	if err != nil {
		http.Error(w, err.Error(), code)
		return
	}
	addr, code, err := p.serverFor(r.Context(), claims)
	if err != nil {
		http.Error(w, err.Error(), code)
		return
	}
	scheme := "http://"
	if p.TLS != nil {
		scheme = "https://"
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, scheme+addr+cdi.UploadPath, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.ContentLength = length
	// The upload server verifies the same token: it takes nothing that
	// did not come through here for its own DataVolume.
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	resp, err := p.transport().RoundTrip(req)
	if err != nil {
		http.Error(w, "reaching the upload server: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// authorize verifies the bearer token: missing, forged or expired is 401.
func (p *Proxy) authorize(r *http.Request) (uploadtoken.Claims, int, error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	c, err := uploadtoken.FromRequest(r, p.PublicKey, now())
	if errors.Is(err, uploadtoken.ErrMissing) {
		return c, http.StatusUnauthorized, err
	}
	if err != nil {
		return c, http.StatusUnauthorized, fmt.Errorf("upload token refused: %w", err)
	}
	return c, 0, nil
}

// uploadTransport opens a connection per upload. Upload servers come and
// go with their workflow (and a new one may get a closed one's port), so a
// pooled keep-alive connection would be a dead one, and a POST is not
// retried on it; one long request per upload gains nothing from pooling.
var uploadTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return t
}()

func (p *Proxy) transport() http.RoundTripper {
	if p.Transport != nil {
		return p.Transport
	}
	if p.TLS != nil {
		t := uploadTransport.(*http.Transport).Clone()
		t.TLSClientConfig = p.TLS
		return t
	}
	return uploadTransport

}
