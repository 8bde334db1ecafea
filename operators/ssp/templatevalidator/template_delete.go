package templatevalidator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	templatev1 "github.com/openshift/api/template/v1"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TemplateValidatePath is where the validator admits deleting templates.
const TemplateValidatePath = "/template-validate"

// Labels and annotations that tie a VM to the template it came from.
const (
	TemplateTypeLabel         = "template.kubevirt.io/type"
	TemplateNameKey           = "vm.kubevirt.io/template"
	TemplateNamespaceKey      = "vm.kubevirt.io/template.namespace"
	TemplateNamespaceOldKey   = "vm.kubevirt.io/template-namespace"
	TemplateValidationsKey    = "validations"
	VMValidationsKey          = "vm.kubevirt.io/validations"
	VMSkipValidationsKey      = "vm.kubevirt.io/skip-validations"
	templateResource          = "templates"
	templateDeletionForbidden = "Template cannot be deleted, because the following VMs are referencing it for validation: %s"
)

// TemplateDeletion refuses to delete a template with validation rules
// while VMs take their rules from it, as upstream's template-admission
// webhook does.
type TemplateDeletion struct {
	// Reader lists VirtualMachines.
	Reader client.Reader
}

// Handle admits DELETE of templates; every other operation passes.
func (d *TemplateDeletion) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Delete {
		return allowed()
	}
	if req.Resource.Resource != templateResource {
		return badRequest(fmt.Errorf("expected resource %v to be '%s'", req.Resource, templateResource))
	}
	tmpl := &templatev1.Template{}
	if err := json.Unmarshal(req.OldObject.Raw, tmpl); err != nil {
		return badRequest(err)
	}
	_, typed := tmpl.Labels[TemplateTypeLabel]
	_, validated := tmpl.Annotations[TemplateValidationsKey]
	if !typed || !validated {
		return allowed()
	}
	vms, err := d.vmsValidatedBy(ctx, tmpl)
	if err != nil {
		return badRequest(err)
	}
	if len(vms) == 0 {
		return allowed()
	}
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Result: &metav1.Status{
		Message: fmt.Sprintf(templateDeletionForbidden, strings.Join(vms, ", ")),
		Reason:  metav1.StatusReasonForbidden, Code: http.StatusForbidden,
	}}}
}

// vmsValidatedBy are the "namespace/name" of the VMs that name tmpl and
// carry no rules of their own.
func (d *TemplateDeletion) vmsValidatedBy(ctx context.Context, tmpl *templatev1.Template) ([]string, error) {
	list := &kubevirtv1.VirtualMachineList{}
	if err := d.Reader.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing virtual machines: %w", err)
	}
	key := tmpl.Namespace + "/" + tmpl.Name
	var out []string
	for i := range list.Items {
		vm := &list.Items[i]
		if _, own := vm.Annotations[VMValidationsKey]; own {
			continue
		}
		if k, ok := templateKeyOf(vm); ok && k == key {
			out = append(out, vm.Namespace+"/"+vm.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// templateKeyOf is the "namespace/name" of the template a VM names, by its
// labels, else its annotations (the older way), as upstream reads it.
func templateKeyOf(vm *kubevirtv1.VirtualMachine) (string, bool) {
	for _, m := range []map[string]string{vm.Labels, vm.Annotations} {
		ns := m[TemplateNamespaceKey]
		if ns == "" {
			ns = m[TemplateNamespaceOldKey]
		}
		if name := m[TemplateNameKey]; name != "" && ns != "" {
			return ns + "/" + name, true
		}
	}
	return "", false
}

// badRequest is upstream's answer to a request it cannot read: the
// error's message with code 400.
func badRequest(err error) admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
		Result: &metav1.Status{Message: err.Error(), Code: http.StatusBadRequest},
	}}
}
