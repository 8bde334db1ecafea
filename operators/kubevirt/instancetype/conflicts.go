// Package instancetype applies VirtualMachineInstancetypes and
// VirtualMachinePreferences to a VMI spec the way upstream does: the
// instancetype owns what it sets and a VM setting the same field is a
// conflict; the preference only fills what the VM left unset. virt-api's
// VM webhook and virt-controller's VM controller share it, so admission
// and start agree.
package instancetype

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const conflictFormat = "VM field(s) %s conflicts with selected instance type"

// Conflict is one VM field that the instancetype also sets.
type Conflict struct{ Path *field.Path }

// Error renders the conflict in upstream's words.
func (c Conflict) Error() string { return fmt.Sprintf(conflictFormat, c.Path.String()) }

// StatusCause is the admission cause upstream returns for one conflict.
func (c Conflict) StatusCause() metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: c.Error(), Field: c.Path.String()}
}

// Conflicts are all the conflicts of one VM with its instancetype.
type Conflicts []Conflict

// Paths joins the conflicting paths with ", ".
func (cs Conflicts) Paths() string {
	paths := make([]string, len(cs))
	for i, c := range cs {
		paths[i] = c.Path.String()
	}
	return strings.Join(paths, ", ")
}

// StatusCauses gives one cause per conflict, as upstream's admission does.
func (cs Conflicts) StatusCauses() []metav1.StatusCause {
	out := make([]metav1.StatusCause, len(cs))
	for i, c := range cs {
		out[i] = c.StatusCause()
	}
	return out
}

// VMIError is the error the VM controller reports when the instancetype
// cannot be applied to the VMI it starts.
func (cs Conflicts) VMIError() error {
	return fmt.Errorf("VMI conflicts with instancetype spec in fields: [%s]", cs.Paths())
}

// Err is all conflicts in one error, as upstream's expand reports them.
func (cs Conflicts) Err() error { return fmt.Errorf(conflictFormat, cs.Paths()) }
