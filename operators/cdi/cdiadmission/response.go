// Package cdiadmission holds the shapes of CDI's admission answers, which
// every CDI webhook (DataVolume, DataImportCron, volume populators) gives
// alike: 422 with every cause's message joined after a space, 400 with an
// error's text, and an allowance without status.
package cdiadmission

import (
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Reject is CDI's denial: 422 with the causes, and a message made of every
// cause's message, each after one space (so it starts with a space, which
// clients see as a double space after "denied the request:"). CDI sets no
// reason.
func Reject(causes []metav1.StatusCause) admission.Response {
	msg := ""
	for _, c := range causes {
		msg += " " + c.Message
	}
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
		Result: &metav1.Status{
			Message: msg,
			Code:    http.StatusUnprocessableEntity,
			Details: &metav1.StatusDetails{Causes: causes},
		},
	}}
}

// BadRequest is CDI's answer to anything but invalid fields: a request
// it cannot read, a lookup that failed. 400 with the error's text and no
// causes.
func BadRequest(err error) admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
		Result: &metav1.Status{Message: err.Error(), Code: http.StatusBadRequest},
	}}
}

// Admit allows the request, with no status, as CDI does.
func Admit() admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true}}
}

// NameTooLong is CDI's cause for a name (of the object, a storage class
// or a managed DataSource) longer than limit; nil when it fits. CDI names
// no field.
func NameTooLong(name string, limit int) []metav1.StatusCause {
	if len(name) <= limit {
		return nil
	}
	return []metav1.StatusCause{{
		Type:    metav1.CauseTypeFieldValueInvalid,
		Message: fmt.Sprintf("Name cannot be longer than %d characters", limit),
	}}
}

// Invalid is one FieldValueInvalid cause at f, the type of almost every
// CDI cause.
func Invalid(f *field.Path, msg string) []metav1.StatusCause {
	return []metav1.StatusCause{InvalidCause(f, msg)}
}

// InvalidCause is one FieldValueInvalid cause at f, for lists of causes.
func InvalidCause(f *field.Path, msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: msg, Field: f.String()}
}
