package templatevalidator

import (
	"context"
	"encoding/json"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

const minMemoryRules = `[{"name":"minimal-required-memory","path":"jsonpath::.spec.domain.memory.guest","rule":"integer",
"message":"This VM requires more memory.","min":1073741824},
{"name":"windows-virtio-bus","path":"jsonpath::.spec.domain.devices.disks[*].disk.bus","valid":"jsonpath::.spec.domain.devices.disks[*].disk.bus",
"rule":"enum","message":"virtio disk bus type has better performance","values":["virtio"],"justWarning":true}]`

func reader(t *testing.T, objs ...client.Object) client.Reader {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

func baseTemplate(name string) *templatev1.Template {
	return &templatev1.Template{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift", Name: name,
		Labels:      map[string]string{TemplateTypeLabel: "base"},
		Annotations: map[string]string{TemplateValidationsKey: minMemoryRules}}}
}

func templatedVM(name, memory, bus string) *kubevirtv1.VirtualMachine {
	mem := resource.MustParse(memory)
	return &kubevirtv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
			Labels: map[string]string{TemplateNameKey: "fedora-server-small", TemplateNamespaceKey: "openshift"}},
		Spec: kubevirtv1.VirtualMachineSpec{Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: kubevirtv1.VirtualMachineInstanceSpec{
			Domain: kubevirtv1.DomainSpec{Memory: &kubevirtv1.Memory{Guest: &mem}, Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{
				Name: "root", DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBus(bus)}}}}}},
		}}},
	}
}

func review(t *testing.T, h admission.Handler, op admissionv1.Operation, resource string, obj, old any) admission.Response {
	t.Helper()
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: op,
		Resource: metav1.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: resource}}}
	if obj != nil {
		raw, err := json.Marshal(obj)
		require.NoError(t, err)
		req.Object = runtime.RawExtension{Raw: raw}
	}
	if old != nil {
		raw, err := json.Marshal(old)
		require.NoError(t, err)
		req.OldObject = runtime.RawExtension{Raw: raw}
	}
	return h.Handle(context.Background(), req)
}

func TestAVMBelowItsTemplatesMinimumIsRefusedAsUpstream(t *testing.T) {
	v := &VMValidator{Reader: reader(t, baseTemplate("fedora-server-small"))}
	resp := review(t, v, admissionv1.Create, "virtualmachines", templatedVM("small", "512Mi", "virtio"), nil)
	require.False(t, resp.Allowed)
	require.EqualValues(t, 422, resp.Result.Code)
	require.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason)
	msg := "This VM requires more memory.: value 536870912 is lower than minimum [1073741824]"
	require.Equal(t, msg, resp.Result.Message)
	require.Equal(t, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: msg, Field: ".spec.domain.memory.guest"}},
		resp.Result.Details.Causes)

	ok := review(t, v, admissionv1.Update, "virtualmachines", templatedVM("big", "2Gi", "virtio"), nil)
	require.True(t, ok.Allowed)
	require.Empty(t, ok.Warnings)
}

func TestAJustWarningRuleWarnsWithoutRefusing(t *testing.T) {
	v := &VMValidator{Reader: reader(t, baseTemplate("fedora-server-small"))}
	resp := review(t, v, admissionv1.Create, "virtualmachines", templatedVM("sata", "2Gi", "sata"), nil)
	require.True(t, resp.Allowed)
	require.Equal(t, []string{"virtio disk bus type has better performance: Some of [sata] are not in [virtio]"}, resp.Warnings)
}

func TestWhichRulesApply(t *testing.T) {
	v := &VMValidator{Reader: reader(t, baseTemplate("fedora-server-small"))}
	own := templatedVM("own", "512Mi", "virtio")
	own.Annotations = map[string]string{VMValidationsKey: `[{"name":"any","path":"jsonpath::.spec.domain.memory.guest","rule":"integer","message":"m","min":1}]`}
	require.True(t, review(t, v, admissionv1.Create, "virtualmachines", own, nil).Allowed, "a VM's own rules replace its template's")
	skip := templatedVM("skip", "512Mi", "virtio")
	skip.Annotations = map[string]string{VMSkipValidationsKey: ""}
	require.True(t, review(t, v, admissionv1.Create, "virtualmachines", skip, nil).Allowed, "skip-validations skips")
	gone := templatedVM("gone", "512Mi", "virtio")
	gone.Labels[TemplateNameKey] = "deleted"
	require.True(t, review(t, v, admissionv1.Create, "virtualmachines", gone, nil).Allowed, "no template, no rules")
	legacy := templatedVM("legacy", "512Mi", "virtio")
	delete(legacy.Labels, TemplateNamespaceKey)
	legacy.Labels[TemplateNamespaceOldKey] = "openshift"
	require.False(t, review(t, v, admissionv1.Create, "virtualmachines", legacy, nil).Allowed, "the older namespace label still names the template")
	broken := templatedVM("broken", "2Gi", "virtio")
	broken.Annotations = map[string]string{VMValidationsKey: `{not json`}
	resp := review(t, v, admissionv1.Create, "virtualmachines", broken, nil)
	require.False(t, resp.Allowed)
	require.EqualValues(t, 400, resp.Result.Code)
	require.Empty(t, resp.Result.Reason)
}

func TestATemplateVMsStillUseCannotBeDeleted(t *testing.T) {
	tmpl := baseTemplate("fedora-server-small")
	vm := templatedVM("web", "2Gi", "virtio")
	d := &TemplateDeletion{Reader: reader(t, tmpl, vm)}
	resp := review(t, d, admissionv1.Delete, "templates", nil, tmpl)
	require.False(t, resp.Allowed)
	require.EqualValues(t, 403, resp.Result.Code)
	require.Equal(t, metav1.StatusReasonForbidden, resp.Result.Reason)
	require.Equal(t, "Template cannot be deleted, because the following VMs are referencing it for validation: ns/web", resp.Result.Message)

	vm.Annotations = map[string]string{VMValidationsKey: minMemoryRules}
	d = &TemplateDeletion{Reader: reader(t, tmpl, vm)}
	require.True(t, review(t, d, admissionv1.Delete, "templates", nil, tmpl).Allowed, "a VM with its own rules does not hold the template")
	unvalidated := baseTemplate("plain")
	delete(unvalidated.Annotations, TemplateValidationsKey)
	require.True(t, review(t, d, admissionv1.Delete, "templates", nil, unvalidated).Allowed)
}
