package templates

import (
	"errors"
	"fmt"
	"net/http"
	"sort"

	templatev1 "github.com/openshift/api/template/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// unknownParameters refuses values for parameters the template does not
// declare. oc reports them as a plain aggregate; the page needs to show
// each on its field, so they become a 422 Invalid with oc's texts as the
// message and a cause per name, its field the name's place in the
// request body (parameters[NAME]).
func unknownParameters(tpl *templatev1.Template, values map[string]string) error {
	declared := map[string]bool{}
	for _, p := range tpl.Parameters {
		declared[p.Name] = true
	}
	var names []string
	for name := range values {
		if !declared[name] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names) // oc's order is Go's map order; the page's is stable
	var errs []error
	causes := make([]metav1.StatusCause, 0, len(names))
	for _, name := range names {
		msg := fmt.Sprintf("unknown parameter name %q", name)
		errs = append(errs, errors.New(msg))
		causes = append(causes, metav1.StatusCause{
			Type: metav1.CauseTypeFieldValueNotFound, Field: field.NewPath("parameters").Key(name).String(), Message: msg,
		})
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
		Message: utilerrors.NewAggregate(errs).Error(),
		Details: &metav1.StatusDetails{Name: tpl.Name, Group: templatev1.GroupName, Kind: "Template", Causes: causes},
	}}
}
