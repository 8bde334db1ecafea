package copytemplate

import (
	"encoding/json"
	"fmt"
	"strings"

	templatev1 "github.com/openshift/api/template/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Labels and annotations that make a template a common one, which the
// copy, a user's template, must not carry.
const (
	templateTypeLabel   = "template.kubevirt.io/type"
	templateTypeBase    = "base"
	templateTypeVM      = "vm"
	vmTemplateNameLabel = "vm.kubevirt.io/template"
)

// commonTemplatePrefixes start the os, flavor and workload labels.
var commonTemplatePrefixes = []string{
	"os.template.kubevirt.io/", "flavor.template.kubevirt.io/", "workload.template.kubevirt.io/",
}

// commonTemplateKeys are dropped from the template's labels and annotations.
var commonTemplateKeys = []string{
	"template.kubevirt.io/version", "template.kubevirt.io/deprecated", "template.kubevirt.io/default-os-variant",
	"openshift.io/documentation-url", "openshift.io/provider-display-name", "openshift.io/support-url",
	"template.kubevirt.io/provider", "template.kubevirt.io/provider-support-level", "template.kubevirt.io/provider-url",
	"operator-sdk/primary-resource", "operator-sdk/primary-resource-type",
	"app.kubernetes.io/component", "app.kubernetes.io/name", "app.kubernetes.io/part-of",
	"app.kubernetes.io/version", "app.kubernetes.io/managed-by",
}

// commonVMKeys are dropped from the VM's and its pods' labels and
// annotations.
var commonVMKeys = []string{
	"vm.kubevirt.io/flavor", "vm.kubevirt.io/os", "vm.kubevirt.io/workload",
	"kubevirt.io/domain", "kubevirt.io/size",
	"vm.kubevirt.io/template.revision", "vm.kubevirt.io/template.version",
}

// isCommonTemplate tells a common template by its type label.
func isCommonTemplate(tpl *templatev1.Template) bool {
	return tpl.Labels[templateTypeLabel] == templateTypeBase
}

// userTemplate strips the common template's markings from tpl and from
// its first object, which must be a kubevirt.io/v1 VirtualMachine, and
// points the VM's template label at the copy's name, as upstream does
// (empty when the copy's name is generated).
func userTemplate(tpl *templatev1.Template, targetName string) error {
	dropCommonTemplateKeys(tpl.Labels)
	dropCommonTemplateKeys(tpl.Annotations)
	if len(tpl.Objects) == 0 {
		return fmt.Errorf("template %s contains no objects", tpl.Name)
	}
	vm, err := firstObject(tpl)
	if err != nil {
		return err
	}
	if vm.GetAPIVersion() != "kubevirt.io/v1" || vm.GetKind() != "VirtualMachine" {
		return fmt.Errorf("template %s contains unexpected object: %s, %s", tpl.Name, vm.GetAPIVersion(), vm.GetKind())
	}
	paths := [][]string{
		{"metadata", "labels"}, {"spec", "template", "metadata", "labels"},
		{"spec", "template", "metadata", "annotations"}, {"metadata", "annotations"},
	}
	for i, path := range paths {
		var added map[string]string
		if i == 0 {
			added = map[string]string{vmTemplateNameLabel: targetName}
		}
		if err := dropCommonVMKeys(vm, path, added); err != nil {
			return fmt.Errorf("template %s: %s of the VirtualMachine: %w", tpl.Name, strings.Join(path, "."), err)
		}
	}
	raw, err := json.Marshal(vm.Object)
	if err != nil {
		return fmt.Errorf("encoding the VirtualMachine of template %s: %w", tpl.Name, err)
	}
	tpl.Objects[0].Raw, tpl.Objects[0].Object = raw, nil
	return nil
}

// firstObject decodes tpl's first object.
func firstObject(tpl *templatev1.Template) (*unstructured.Unstructured, error) {
	raw := tpl.Objects[0].Raw
	if raw == nil && tpl.Objects[0].Object != nil {
		var err error
		if raw, err = json.Marshal(tpl.Objects[0].Object); err != nil {
			return nil, fmt.Errorf("encoding the first object of template %s: %w", tpl.Name, err)
		}
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("decoding the first object of template %s: %w", tpl.Name, err)
	}
	return u, nil
}

func dropCommonTemplateKeys(m map[string]string) {
	for k := range m {
		for _, prefix := range commonTemplatePrefixes {
			if strings.HasPrefix(k, prefix) {
				delete(m, k)
			}
		}
	}
	for _, k := range commonTemplateKeys {
		delete(m, k)
	}
}

// dropCommonVMKeys drops the common keys from the string map at path of
// vm, and adds added to it; a VM without that map is left alone.
func dropCommonVMKeys(vm *unstructured.Unstructured, path []string, added map[string]string) error {
	m, found, err := unstructured.NestedStringMap(vm.Object, path...)
	if err != nil || !found {
		return err
	}
	for _, k := range commonVMKeys {
		delete(m, k)
	}
	for k, v := range added {
		m[k] = v
	}
	return unstructured.SetNestedStringMap(vm.Object, m, path...)
}
