package virtapi

import (
	"fmt"
	"net/http"
)

// ActionError carries the HTTP status a failed subresource answers with.
type ActionError struct {
	Code    int
	Message string
}

func (e *ActionError) Error() string { return e.Message }

// vmConflict and vmiConflict are upstream's 409s, which name the object
// by its singular resource.
func vmConflict(name, format string, args ...any) error {
	return &ActionError{Code: http.StatusConflict, Message: fmt.Sprintf(
		"Operation cannot be fulfilled on virtualmachine.kubevirt.io %q: %s", name, fmt.Sprintf(format, args...))}
}

func vmiConflict(name, format string, args ...any) error {
	return &ActionError{Code: http.StatusConflict, Message: fmt.Sprintf(
		"Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io %q: %s", name, fmt.Sprintf(format, args...))}
}

func badRequest(format string, args ...any) error {
	return &ActionError{Code: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func internal(format string, args ...any) error {
	return &ActionError{Code: http.StatusInternalServerError, Message: "Internal error occurred: " + fmt.Sprintf(format, args...)}
}
