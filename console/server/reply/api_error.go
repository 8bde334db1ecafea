package reply

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/session"
)

// APIError answers for a request the console made to the kube-apiserver
// as the user: the apiserver's own Status and code when it refused (a
// 401 also drops the session cookies, as the token is no longer good),
// else 502 saying what the console was doing.
func APIError(w http.ResponseWriter, r *http.Request, doing string, err error) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		Error(w, http.StatusBadGateway, metav1.StatusReasonServiceUnavailable, doing+": "+err.Error())
		return
	}
	s := status.Status()
	if s.Code == 0 {
		s.Code = http.StatusInternalServerError
	}
	s.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if s.Code == http.StatusUnauthorized {
		session.ClearCookies(w, r)
	}
	JSON(w, int(s.Code), &s)
}
