package templateprocess

import (
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestMarkTemplateNamespaceLabelsOnlyTheTemplatesVMs(t *testing.T) {
	vm := func(template string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetKind("VirtualMachine")
		u.SetLabels(map[string]string{VMTemplateLabel: template})
		return u
	}
	own, other := vm("fedora"), vm("centos")
	objs := []runtime.RawExtension{{Object: own}, {Object: other}}
	MarkTemplateNamespace(objs, &templatev1.Template{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift", Name: "fedora"}})
	require.Equal(t, "openshift", own.GetLabels()[VMTemplateNamespaceLabel])
	require.NotContains(t, other.GetLabels(), VMTemplateNamespaceLabel)

	local := vm("fedora")
	MarkTemplateNamespace([]runtime.RawExtension{{Object: local}}, &templatev1.Template{ObjectMeta: metav1.ObjectMeta{Name: "fedora"}})
	require.NotContains(t, local.GetLabels(), VMTemplateNamespaceLabel, "a file naming no namespace marks nothing")
}
