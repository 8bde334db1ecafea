// Package reply writes the console server's JSON answers. Errors take the
// shape of a Kubernetes Status, so the frontend reads one error shape
// whether the console itself or the kube-apiserver behind it refused.
package reply

import (
	"encoding/json"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JSON writes v with the given status code.
func JSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// Error writes a Failure Status with the code, a machine-readable reason
// and the message a person reads.
func Error(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	JSON(w, code, Status(code, reason, message))
}

// Status is the Failure Status Error writes.
func Status(code int, reason metav1.StatusReason, message string) *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message,
	}
}
