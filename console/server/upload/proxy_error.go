package upload

import (
	"errors"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/reply"
)

// proxyError answers for a failed send with the proxy's code, except its
// 401: that refused the upload token, not the user's login, and the page
// logs out on a 401.
func proxyError(w http.ResponseWriter, err error) {
	var ref *refusal
	if !errors.As(err, &ref) {
		reply.Error(w, http.StatusBadGateway, metav1.StatusReasonServiceUnavailable, err.Error())
		return
	}
	code := ref.code
	if code == http.StatusUnauthorized || code < 400 {
		code = http.StatusBadGateway
	}
	reply.Error(w, code, reasonFor(code), ref.Error())
}

// reasonFor is the Status reason the apiserver would give the code.
func reasonFor(code int) metav1.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusRequestEntityTooLarge:
		return metav1.StatusReasonRequestEntityTooLarge
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	}
	return metav1.StatusReasonInternalError
}
