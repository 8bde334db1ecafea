package templateprocess

import (
	templatev1 "github.com/openshift/api/template/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The labels naming the template a VM came from.
const (
	VMTemplateLabel          = "vm.kubevirt.io/template"
	VMTemplateNamespaceLabel = "vm.kubevirt.io/template.namespace"
)

// MarkTemplateNamespace labels the processed VMs that name tpl (by the
// template label, which the template sets) with tpl's namespace, as
// OpenShift's console does when it creates a VM from a template: that is
// how the template validator finds the VM's rules. A template without a
// namespace (a local file that names none) marks nothing.
func MarkTemplateNamespace(objects []runtime.RawExtension, tpl *templatev1.Template) {
	if tpl.Namespace == "" || tpl.Name == "" {
		return
	}
	for _, o := range objects {
		u, ok := o.Object.(*unstructured.Unstructured)
		if !ok || u.GetKind() != "VirtualMachine" {
			continue
		}
		labels := u.GetLabels()
		if labels[VMTemplateLabel] != tpl.Name {
			continue
		}
		labels[VMTemplateNamespaceLabel] = tpl.Namespace
		u.SetLabels(labels)
	}
}
