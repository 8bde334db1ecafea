package templates

import (
	templatev1 "github.com/openshift/api/template/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The labels naming the template a VM came from.
const (
	vmTemplateLabel          = "vm.kubevirt.io/template"
	vmTemplateNamespaceLabel = "vm.kubevirt.io/template.namespace"
)

// markTemplateNamespace labels the VMs the template names itself on with
// its namespace, as `virtflow template process` and OpenShift's console
// do: with the name, which the template sets, that is how the template
// validator finds the VM's rules.
func markTemplateNamespace(objects []runtime.RawExtension, tpl *templatev1.Template) {
	if tpl.Namespace == "" || tpl.Name == "" {
		return
	}
	for _, o := range objects {
		u, ok := o.Object.(*unstructured.Unstructured)
		if !ok || u.GetKind() != "VirtualMachine" {
			continue
		}
		labels := u.GetLabels()
		if labels[vmTemplateLabel] != tpl.Name {
			continue
		}
		labels[vmTemplateNamespaceLabel] = tpl.Namespace
		u.SetLabels(labels)
	}
}
