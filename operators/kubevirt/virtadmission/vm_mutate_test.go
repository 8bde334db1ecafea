package virtadmission

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func mutateVM(t *testing.T, op admissionv1.Operation, vm, old *kubevirtv1.VirtualMachine) admission.Response {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	raw, err := json.Marshal(vm)
	require.NoError(t, err)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: op, Object: runtime.RawExtension{Raw: raw}}}
	if old != nil {
		req.OldObject.Raw, err = json.Marshal(old)
		require.NoError(t, err)
	}
	return (&VMMutator{Decoder: admission.NewDecoder(scheme)}).Handle(context.Background(), req)
}

func TestVMMutatorChecksMatchersAsUpstream(t *testing.T) {
	ignore := kubevirtv1.InferFromVolumeFailurePolicy("Maybe")
	cases := []struct {
		name  string
		edit  func(*kubevirtv1.VirtualMachine)
		cause metav1.StatusCause
	}{
		{"no name", func(vm *kubevirtv1.VirtualMachine) { vm.Spec.Instancetype.Name = "" },
			metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotFound, Field: "spec.instancetype",
				Message: "Either Name or InferFromVolume should be provided within the InstancetypeMatcher"}},
		{"name and inferFromVolume", func(vm *kubevirtv1.VirtualMachine) { vm.Spec.Instancetype.InferFromVolume = "root" },
			metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.instancetype.name",
				Message: "Name already set, should be cleared before setting inferFromVolume"}},
		{"bad policy", func(vm *kubevirtv1.VirtualMachine) {
			vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Name: "p", InferFromVolumeFailurePolicy: &ignore}
		}, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.preference.inferFromVolumeFailurePolicy",
			Message: "Invalid value 'Maybe' for InferFromVolumeFailurePolicy"}},
		{"inferring, not built yet", func(vm *kubevirtv1.VirtualMachine) {
			vm.Spec.Instancetype = &kubevirtv1.InstancetypeMatcher{InferFromVolume: "root"}
		}, metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.instancetype.inferFromVolume",
			Message: "inferFromVolume is not supported yet by this virtflow release; name the Instancetype instead"}},
	}
	for _, c := range cases {
		vm := sizedVM(nil)
		c.edit(vm)
		resp := mutateVM(t, admissionv1.Create, vm, nil)
		require.False(t, resp.Allowed, c.name)
		require.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code, c.name)
		require.Equal(t, []metav1.StatusCause{c.cause}, resp.Result.Details.Causes, c.name)
	}

	old := sizedVM(func(_ *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
		vm.Spec.Instancetype.RevisionName = "r1"
	})
	renamed := old.DeepCopy()
	renamed.Spec.Instancetype.Name = "u1.large"
	resp := mutateVM(t, admissionv1.Update, renamed, old)
	require.False(t, resp.Allowed)
	require.Equal(t, "the Matcher Name has been updated without updating the RevisionName", resp.Result.Message)
}

func TestVMMutatorSetsUpstreamsVMDefaultsOnly(t *testing.T) {
	vm := sizedVM(nil)
	resp := mutateVM(t, admissionv1.Create, vm, nil)
	require.True(t, resp.Allowed)
	paths := map[string]bool{}
	for _, p := range resp.Patches {
		paths[p.Path] = true
	}
	require.True(t, paths["/spec/template/spec/domain/firmware"], "a firmware UUID and serial on creation: %v", paths)
	require.True(t, paths["/spec/template/spec/domain/machine"], "%v", paths)
	require.True(t, paths["/spec/template/spec/architecture"], "%v", paths)
	require.False(t, paths["/spec/template/spec/networks"], "interfaces and networks are the VMI's defaults")

	resp = mutateVM(t, admissionv1.Update, vm, vm)
	for _, p := range resp.Patches {
		require.NotEqual(t, "/spec/template/spec/domain/firmware", p.Path, "no new UUID on update")
	}
}
