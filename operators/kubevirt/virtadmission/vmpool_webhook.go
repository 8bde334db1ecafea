package virtadmission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// VMPoolValidatePath is where virt-api validates VirtualMachinePools.
const VMPoolValidatePath = "/virtualmachinepool-validate"

// VMPoolValidator rejects invalid VirtualMachinePools with upstream's
// causes. The API server has already checked the object against the CRD
// schema by the time a validating webhook runs, so upstream's own schema
// pass is not repeated. Upstream also refuses, on creation, templates using
// a discontinued feature gate, and warns about deprecated ones; none of the
// gates virt-api takes as on is either.
type VMPoolValidator struct{}

// Handle validates CREATE and UPDATE.
func (v *VMPoolValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	if err := poolResourceError(req.Resource); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	pool := &poolv1.VirtualMachinePool{}
	if err := json.Unmarshal(req.Object.Raw, pool); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	// The controller's finalizer removal is an UPDATE too; a pool that
	// went invalid under newer rules must still be able to go away.
	if pool.DeletionTimestamp != nil {
		return admission.Allowed("")
	}
	causes := ValidateVMPoolSpec(field.NewPath("spec"), &pool.Spec)
	if req.Operation == admissionv1.Update && pool.Spec.VirtualMachineTemplate != nil {
		causes = append(causes, poolUpdateCauses(req, pool)...)
	}
	return deny(causes)
}

// poolResourceError refuses a request for anything but v1beta1 pools.
// Upstream prints the received and the expected value the other way
// round; they are in the order the words say here.
func poolResourceError(r metav1.GroupVersionResource) error {
	want := poolv1.SchemeGroupVersion.WithResource("virtualmachinepools")
	switch {
	case r.Resource != want.Resource:
		return fmt.Errorf("expect resource [%s], but got [%s]", want.Resource, r.Resource)
	case r.Group != want.Group:
		return fmt.Errorf("expect resource group [%s], but got [%s]", want.Group, r.Group)
	case r.Version != want.Version:
		return fmt.Errorf("expect resource version [%s], but got [%s]", want.Version, r.Version)
	}
	return nil
}

// poolUpdateCauses keeps the selector as it was created: VMs the pool
// built would otherwise fall out of it.
func poolUpdateCauses(req admission.Request, pool *poolv1.VirtualMachinePool) []metav1.StatusCause {
	var causes []metav1.StatusCause
	old := &poolv1.VirtualMachinePool{}
	if err := json.Unmarshal(req.OldObject.Raw, old); err != nil {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Message: "Could not fetch old vmpool"})
	}
	if !equality.Semantic.DeepEqual(pool.Spec.Selector, old.Spec.Selector) {
		causes = append(causes, cause(field.NewPath("spec", "selector"), "selector is immutable after creation."))
	}
	return causes
}

// ValidateVMPoolSpec checks a pool spec as upstream does: the VM template
// as a VirtualMachine spec, a selector that selects the template, a
// sensible maxUnavailable and at most one strategy of each kind.
func ValidateVMPoolSpec(f *field.Path, spec *poolv1.VirtualMachinePoolSpec) []metav1.StatusCause {
	if spec.VirtualMachineTemplate == nil {
		// Upstream names the field "template" although it is
		// virtualMachineTemplate.
		return one(causeOf(metav1.CauseTypeFieldValueRequired, f.Child("template"), "missing virtual machine template."))
	}
	causes := reroot(ValidateVMSpec(&spec.VirtualMachineTemplate.Spec), f.Child("virtualMachineTemplate", "spec"))
	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	switch {
	case err != nil:
		causes = append(causes, cause(f.Child("selector"), "%s", err.Error()))
	case !selector.Matches(labels.Set(spec.VirtualMachineTemplate.ObjectMeta.Labels)):
		causes = append(causes, cause(f.Child("selector"), "selector does not match labels."))
	}
	if spec.MaxUnavailable != nil {
		causes = append(causes, maxUnavailableCauses(f.Child("maxUnavailable"), *spec.MaxUnavailable)...)
	}
	if st := spec.UpdateStrategy; st != nil {
		causes = append(causes, oneStrategy(f.Child("updateStrategy"), st.Unmanaged != nil, st.Opportunistic != nil, st.Proactive != nil)...)
	}
	if st := spec.ScaleInStrategy; st != nil {
		causes = append(causes, oneStrategy(f.Child("scaleInStrategy"), st.Unmanaged != nil, st.Opportunistic != nil, st.Proactive != nil)...)
	}
	return causes
}

func maxUnavailableCauses(f *field.Path, mu intstr.IntOrString) []metav1.StatusCause {
	if mu.Type == intstr.Int {
		if mu.IntVal <= 0 {
			return one(cause(f, "maxUnavailable must be greater than 0"))
		}
		return nil
	}
	pct, ok := strings.CutSuffix(mu.StrVal, "%")
	if !ok {
		return one(cause(f, "maxUnavailable percentage must end with %%"))
	}
	val, err := strconv.Atoi(pct)
	if err != nil {
		return one(cause(f, "maxUnavailable percentage value %q is invalid: %v", pct, err))
	}
	if val <= 0 || val > 100 {
		return one(cause(f, "maxUnavailable percentage value %d must be between 1 and 100", val))
	}
	return nil
}

// oneStrategy refuses more than one of a kind's strategies. Upstream lists
// them in map order, which varies; they are listed in declaration order.
func oneStrategy(f *field.Path, unmanaged, opportunistic, proactive bool) []metav1.StatusCause {
	var set []string
	for _, s := range []struct {
		name string
		on   bool
	}{{"unmanaged", unmanaged}, {"opportunistic", opportunistic}, {"proactive", proactive}} {
		if s.on {
			set = append(set, s.name)
		}
	}
	if len(set) < 2 {
		return nil
	}
	return one(cause(f, "only one strategy can be configured at a time: but found %s strategies", strings.Join(set, ", ")))
}

// pathStart finds a field path rooted at spec in a cause's field or
// message: "spec." not preceded by a path character.
var pathStart = regexp.MustCompile(`(^|[^\w.\[\]])spec\.([A-Za-z])`)

// reroot moves causes found for a VirtualMachine spec (rooted at "spec")
// under root, in fields and in the messages that quote them, so they read
// as upstream reports them for the pool's template.
func reroot(causes []metav1.StatusCause, root *field.Path) []metav1.StatusCause {
	repl := "${1}" + root.String() + ".${2}"
	for i := range causes {
		if causes[i].Field == "spec" {
			causes[i].Field = root.String()
		}
		causes[i].Field = pathStart.ReplaceAllString(causes[i].Field, repl)
		causes[i].Message = pathStart.ReplaceAllString(causes[i].Message, repl)
	}
	return causes
}
