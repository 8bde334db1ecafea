package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/operations"
	"github.com/virtflow/virtflow/console/server/reply"
	"github.com/virtflow/virtflow/console/server/session"
	"github.com/virtflow/virtflow/version"
)

// access answers POST /console/access: a JSON array of checks in, a JSON
// array of booleans out, in the same order.
func (s *Server) access(w http.ResponseWriter, r *http.Request) {
	var checks []kubeapi.Check
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&checks); err != nil {
		reply.Error(w, http.StatusBadRequest, metav1.StatusReasonBadRequest,
			"the body is a JSON array of {verb, group, resource, subresource, namespace, name}: "+err.Error())
		return
	}
	if len(checks) > kubeapi.MaxChecks {
		reply.Error(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf("at most %d checks at once", kubeapi.MaxChecks))
		return
	}
	token, _ := session.Token(r.Context())
	allowed, err := s.up.Allowed(r.Context(), token, checks)
	if err != nil {
		s.apiserverError(w, r, err)
		return
	}
	reply.JSON(w, http.StatusOK, allowed)
}

// Info answers GET /console/info, which needs no login.
type Info struct {
	Version string `json:"version"`
	// TemporalUI is the Temporal Web UI's base URL, when configured.
	TemporalUI string `json:"temporalUI,omitempty"`
	// Operations says whether the operations routes are served.
	Operations bool `json:"operations"`
	// SessionTTL is how long a login lasts.
	SessionTTL string `json:"sessionTTL"`
}

func (s *Server) info(w http.ResponseWriter, _ *http.Request) {
	reply.JSON(w, http.StatusOK, Info{
		Version: version.Get().GitVersion, TemporalUI: s.cfg.TemporalUI, Operations: s.ops != nil,
		SessionTTL: s.cfg.SessionTTL.Round(time.Second).String(),
	})
}

// withOperations serves an operations route, or 503 when the console runs
// without Temporal.
func (s *Server) withOperations(route func(*operations.Service) http.HandlerFunc) http.Handler {
	if s.ops == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			reply.Error(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable,
				"operations are not available: the console was started without a Temporal address")
		})
	}
	return route(s.ops)
}
