package templatevalidator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	templatev1 "github.com/openshift/api/template/v1"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/kube/templatevalidation"
)

// vmResource is the only resource the VM webhook admits.
const vmResource = "virtualmachines"

// VMValidator checks a VirtualMachine against the validation rules of its
// own vm.kubevirt.io/validations annotation, else of the template its
// labels name, as upstream's virtualmachine-admission webhook: 422 with a
// cause per failed rule. A justWarning rule that fails alone admits the
// VM with an admission warning (upstream only logs it).
type VMValidator struct {
	// Reader reads the templates VMs name.
	Reader client.Reader
}

// Handle admits CREATE and UPDATE.
func (v *VMValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Resource.Resource != vmResource {
		return badRequest(fmt.Errorf("expect resource %v to be '%s'", req.Resource, vmResource))
	}
	vm := &kubevirtv1.VirtualMachine{}
	if err := json.Unmarshal(req.Object.Raw, vm); err != nil {
		return badRequest(err)
	}
	if vm.DeletionTimestamp != nil {
		return allowed()
	}
	rules, err := v.rulesFor(ctx, vm)
	if err != nil {
		return badRequest(err)
	}
	res := templatevalidation.Evaluate(vm, rules)
	if res.Denied() {
		return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Result: res.Status()}}
	}
	return allowed().WithWarnings(res.Warnings...)
}

// rulesFor are the rules that apply to vm: none when it asks to skip
// validation, its own when it carries them, else its template's; none
// when it names no template or the template is gone.
func (v *VMValidator) rulesFor(ctx context.Context, vm *kubevirtv1.VirtualMachine) ([]templatevalidation.Rule, error) {
	if _, skip := vm.Annotations[VMSkipValidationsKey]; skip {
		return nil, nil
	}
	if own := vm.Annotations[VMValidationsKey]; own != "" {
		return parseRules(own)
	}
	key, ok := templateKeyOf(vm)
	if !ok {
		return nil, nil
	}
	ns, name := splitKey(key)
	tmpl := &templatev1.Template{}
	if err := v.Reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, tmpl); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading template %s: %w", key, err)
	}
	return parseRules(tmpl.Annotations[TemplateValidationsKey])
}

// parseRules answers a malformed rules annotation in upstream's words: the
// decoder's error alone, without our context.
func parseRules(annotation string) ([]templatevalidation.Rule, error) {
	rules, err := templatevalidation.Parse(annotation)
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			return nil, inner
		}
		return nil, err
	}
	return rules, nil
}

func splitKey(key string) (string, string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

func allowed() admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true}}
}
