// Package templates processes a cluster's templates for the console's
// create-VM page, as the logged-in user and as `oc process` would: the
// page gets the objects and creates them itself, so nothing here creates
// anything and RBAC decides at creation as for any other request.
package templates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"time"

	templatev1 "github.com/openshift/api/template/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/reply"
	"github.com/virtflow/virtflow/console/server/session"
	"github.com/virtflow/virtflow/kube/templateprocess"
)

// maxBody bounds a request's parameters: a form's worth of values.
const maxBody = 64 << 10

// Kube gives a client acting as the token's owner.
type Kube interface {
	RESTClient(token string) (rest.Interface, error)
}

// Handler serves POST /console/templates/{namespace}/{name}/process.
type Handler struct {
	Kube Kube
}

// ProcessRequest is the route's body.
type ProcessRequest struct {
	// Parameters are the values by parameter name, as oc process -p.
	Parameters map[string]string `json:"parameters,omitempty"`
}

// ServeProcess answers with the processed objects as a v1 List, or a
// Status: the apiserver's when reading the template failed, else 422
// Invalid with oc's messages and a cause per parameter at fault.
func (h *Handler) ServeProcess(w http.ResponseWriter, r *http.Request) {
	var req ProcessRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		reply.Error(w, http.StatusBadRequest, metav1.StatusReasonBadRequest,
			`the body is JSON of the form {"parameters": {"NAME": "value"}}: `+err.Error())
		return
	}
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	tpl, err := h.template(r.Context(), ns, name)
	if err != nil {
		reply.APIError(w, r, fmt.Sprintf("reading template %s/%s", ns, name), err)
		return
	}
	if err := unknownParameters(tpl, req.Parameters); err != nil {
		reply.APIError(w, r, "", err)
		return
	}
	processed, err := templateprocess.Process(tpl, templateprocess.Options{
		Values: req.Parameters, Random: rand.NewSource(time.Now().UnixNano()),
	})
	var invalid apierrors.APIStatus
	switch {
	case errors.As(err, &invalid):
		reply.APIError(w, r, "", err)
		return
	case err != nil:
		reply.Error(w, http.StatusInternalServerError, metav1.StatusReasonInternalError,
			fmt.Sprintf("processing template %s/%s: %v", ns, name, err))
		return
	}
	templateprocess.MarkTemplateNamespace(processed.Objects, tpl)
	reply.JSON(w, http.StatusOK, templateprocess.List(processed.Objects))
}

// template reads the template as the user.
func (h *Handler) template(ctx context.Context, ns, name string) (*templatev1.Template, error) {
	token, _ := session.Token(ctx)
	c, err := h.Kube.RESTClient(token)
	if err != nil {
		return nil, err
	}
	raw, err := kubeapi.Body(c.Get().AbsPath("/apis/template.openshift.io/v1/namespaces", ns, "templates", name).Do(ctx))
	if err != nil {
		return nil, err
	}
	tpl := &templatev1.Template{}
	if err := json.Unmarshal(raw, tpl); err != nil {
		return nil, fmt.Errorf("decoding template %s/%s: %w", ns, name, err)
	}
	return tpl, nil
}
