// Package uploadproxy is cdi-uploadproxy: it takes a user's image with an
// upload token, checks the token names this claim and has not expired,
// and streams the image to the upload server on the claim's node.
package uploadproxy

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/operators/cdi/cdiapi"
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
	Client client.Client
	// PublicKey verifies cdi-apiserver's tokens.
	PublicKey ed25519.PublicKey
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Transport reaches upload servers; one without keep-alive when nil.
	Transport http.RoundTripper
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

// upload authorizes the request and streams body to the claim's server.
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
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, "http://"+addr+cdi.UploadPath, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.ContentLength = length
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
func (p *Proxy) authorize(r *http.Request) (cdiapi.Claims, int, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return cdiapi.Claims{}, http.StatusUnauthorized, errors.New("missing upload token (Authorization: Bearer)")
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	c, err := cdiapi.Verify(p.PublicKey, token, now())
	if err != nil {
		return c, http.StatusUnauthorized, fmt.Errorf("upload token refused: %w", err)
	}
	return c, 0, nil
}

// serverFor finds the upload server of the token's claim: its DataVolume
// must be an upload whose server has noted its address on the claim.
func (p *Proxy) serverFor(ctx context.Context, c cdiapi.Claims) (string, int, error) {
	dv := &cdiv1.DataVolume{}
	if err := p.Client.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, dv); err != nil {
		return "", http.StatusNotFound, fmt.Errorf("no DataVolume %s/%s to upload into", c.Namespace, c.Name)
	}
	if dv.Spec.Source == nil || dv.Spec.Source.Upload == nil {
		return "", http.StatusForbidden, fmt.Errorf("DataVolume %s/%s does not take uploads", c.Namespace, c.Name)
	}
	if dv.Status.Phase == cdiv1.Succeeded {
		return "", http.StatusConflict, fmt.Errorf("DataVolume %s/%s has already been uploaded", c.Namespace, c.Name)
	}
	pvc := &corev1.PersistentVolumeClaim{}
	err := p.Client.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: dv.Name}, pvc)
	if addr := pvc.Annotations[cdi.AnnUploadServer]; err == nil && addr != "" {
		return addr, 0, nil
	}
	return "", http.StatusServiceUnavailable, fmt.Errorf("the upload server of %s/%s is not ready yet", c.Namespace, c.Name)
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
	return uploadTransport

}
