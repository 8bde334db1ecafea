// Package upload takes a disk image from the browser into a DataVolume:
// it asks CDI for an upload token as the logged-in user, so RBAC on
// uploadtokenrequests decides, then streams the request body on to
// cdi-uploadproxy as it arrives, never holding the image. The page
// follows progress on the DataVolume's status, as it would for virtctl.
package upload

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/virtflow/virtflow/console/server/reply"
	"github.com/virtflow/virtflow/console/server/session"
)

// Kube gives a client acting as the token's owner.
type Kube interface {
	RESTClient(token string) (rest.Interface, error)
}

// Handler serves POST /console/upload/{namespace}/{datavolume}.
type Handler struct {
	Kube  Kube
	Proxy Proxy
}

// ServeUpload streams the request body, of known length, into the
// DataVolume, which must exist with an upload source. It answers a
// Success Status once cdi-uploadproxy has taken the whole image, else a
// Failure Status: the apiserver's, or the proxy's code and message (its
// 401, a refused upload token, as 502: the user's login is fine).
func (h *Handler) ServeUpload(w http.ResponseWriter, r *http.Request) {
	ns, dv := r.PathValue("namespace"), r.PathValue("datavolume")
	switch {
	case r.ContentLength < 0:
		reply.Error(w, http.StatusLengthRequired, metav1.StatusReasonBadRequest,
			"send the image as the raw request body with its Content-Length")
		return
	case r.ContentLength == 0:
		reply.Error(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "the image is empty")
		return
	}
	token, ok := h.uploadToken(w, r, ns, dv)
	if !ok {
		return
	}
	client, err := h.Proxy.client(r.Context(), h.user(r.Context()))
	if err != nil {
		reply.Error(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
		return
	}
	defer client.CloseIdleConnections()
	body := &counter{r: r.Body}
	if err := h.Proxy.send(r.Context(), client, token, body, r.ContentLength); err != nil {
		proxyError(w, err)
		return
	}
	reply.JSON(w, http.StatusOK, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: http.StatusOK,
		Message: fmt.Sprintf("uploaded %d bytes to DataVolume %s/%s", body.n.Load(), ns, dv),
	})
}

// uploadToken checks the DataVolume takes an upload and gets its token,
// both as the user; on failure it has answered.
func (h *Handler) uploadToken(w http.ResponseWriter, r *http.Request, ns, dv string) (string, bool) {
	c, err := h.user(r.Context())()
	if err != nil {
		reply.Error(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
		return "", false
	}
	if err := takesUpload(r.Context(), c, ns, dv); err != nil {
		reply.APIError(w, r, fmt.Sprintf("reading DataVolume %s/%s", ns, dv), err)
		return "", false
	}
	token, err := requestToken(r.Context(), c, ns, dv)
	if err != nil {
		reply.APIError(w, r, fmt.Sprintf("requesting an upload token for %s/%s", ns, dv), err)
		return "", false
	}
	return token, true
}

// user makes clients acting as the request's user, only when needed.
func (h *Handler) user(ctx context.Context) func() (rest.Interface, error) {
	return func() (rest.Interface, error) {
		token, _ := session.Token(ctx)
		return h.Kube.RESTClient(token)
	}
}

// counter counts what the proxy has read of the body; the transport may
// read from its own goroutine.
type counter struct {
	r io.Reader
	n atomic.Int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
