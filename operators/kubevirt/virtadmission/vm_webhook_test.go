package virtadmission

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// vmReview runs the VM validator on vm against the instancetypes and
// preferences in objs.
func vmReview(t *testing.T, vm *kubevirtv1.VirtualMachine, objs ...runtime.Object) admission.Response {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	raw, err := json.Marshal(vm)
	require.NoError(t, err)
	v := &VMValidator{Decoder: admission.NewDecoder(scheme), Reader: fake.NewClientBuilder().WithScheme(scheme).WithRuntimeObjects(objs...).Build()}
	return v.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}}})
}

func sizedVM(mutate func(*kubevirtv1.VirtualMachineInstanceSpec, *kubevirtv1.VirtualMachine)) *kubevirtv1.VirtualMachine {
	always := kubevirtv1.RunStrategyAlways
	spec := validSpec()
	spec.Domain.Memory = nil
	vm := &kubevirtv1.VirtualMachine{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"},
		Spec: kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Instancetype: &kubevirtv1.InstancetypeMatcher{Name: "u1.small"},
			Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: spec}},
	}
	if mutate != nil {
		mutate(&vm.Spec.Template.Spec, vm)
	}
	return vm
}

func clusterInstancetype(name string, vcpus uint32, mem string, mutate func(*v1beta1.VirtualMachineInstancetypeSpec)) *v1beta1.VirtualMachineClusterInstancetype {
	it := &v1beta1.VirtualMachineClusterInstancetype{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1beta1.VirtualMachineInstancetypeSpec{CPU: v1beta1.CPUInstancetype{Guest: vcpus},
			Memory: v1beta1.MemoryInstancetype{Guest: resource.MustParse(mem)}}}
	if mutate != nil {
		mutate(&it.Spec)
	}
	return it
}

func clusterPreference(name string, spec v1beta1.VirtualMachinePreferenceSpec) *v1beta1.VirtualMachineClusterPreference {
	return &v1beta1.VirtualMachineClusterPreference{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
}

func conflictCause(path string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: path,
		Message: "VM field(s) " + path + " conflicts with selected instance type"}
}

func TestVMAdmissionWithInstancetypesFollowsUpstream(t *testing.T) {
	small := clusterInstancetype("u1.small", 2, "1Gi", nil)
	model := "Haswell"
	owning := clusterInstancetype("u1.small", 2, "1Gi", func(s *v1beta1.VirtualMachineInstancetypeSpec) {
		s.CPU.Model = &model
		s.NodeSelector = map[string]string{"zone": "a"}
		s.Memory.MaxGuest = resource.NewQuantity(4<<30, resource.BinarySI)
		s.Annotations = map[string]string{"team": "blue"}
	})
	mem := resource.MustParse("1Gi")
	four := uint32(4)
	spread := v1beta1.Spread
	coresThreads := v1beta1.SpreadAcrossCoresThreads
	cases := []struct {
		name   string
		vm     *kubevirtv1.VirtualMachine
		objs   []runtime.Object
		causes []metav1.StatusCause
	}{
		{"an instancetype that does not exist yet is no reason to refuse", sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, _ *kubevirtv1.VirtualMachine) {
			s.Domain.Memory = &kubevirtv1.Memory{Guest: &mem}
		}), nil, nil},
		{"nor is a preference that does not exist", sizedVM(func(_ *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
			vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Name: "missing"}
		}), []runtime.Object{small}, nil},
		{"the instancetype brings CPU and memory", sizedVM(nil), []runtime.Object{small}, nil},
		{"each topology field is its own cause", sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, _ *kubevirtv1.VirtualMachine) {
			s.Domain.CPU = &kubevirtv1.CPU{Sockets: 1, Cores: 2, Threads: 1}
		}), []runtime.Object{small}, []metav1.StatusCause{
			conflictCause("spec.template.spec.domain.cpu.sockets"), conflictCause("spec.template.spec.domain.cpu.cores"),
			conflictCause("spec.template.spec.domain.cpu.threads")}},
		{"CPU resources and memory guest", sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, _ *kubevirtv1.VirtualMachine) {
			s.Domain.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			s.Domain.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			s.Domain.Memory = &kubevirtv1.Memory{Guest: &mem}
		}), []runtime.Object{small}, []metav1.StatusCause{
			conflictCause("spec.template.spec.domain.resources.requests.cpu"), conflictCause("spec.template.spec.domain.resources.limits.cpu"),
			conflictCause("spec.template.spec.domain.memory.guest")}},
		{"only the first memory conflict", sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, _ *kubevirtv1.VirtualMachine) {
			s.Domain.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
			s.Domain.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
		}), []runtime.Object{small}, []metav1.StatusCause{conflictCause("spec.template.spec.domain.resources.requests.memory")}},
		{"a model is a conflict only when both set one", sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, _ *kubevirtv1.VirtualMachine) {
			s.Domain.CPU = &kubevirtv1.CPU{Model: "host-model"}
		}), []runtime.Object{small}, nil},
		{"fields both set, annotations that differ", sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
			s.Domain.CPU = &kubevirtv1.CPU{Model: "host-model"}
			s.NodeSelector = map[string]string{"zone": "b"}
			s.Domain.Memory = &kubevirtv1.Memory{MaxGuest: resource.NewQuantity(8<<30, resource.BinarySI)}
			vm.Spec.Template.ObjectMeta.Annotations = map[string]string{"team": "red"}
		}), []runtime.Object{owning}, []metav1.StatusCause{
			conflictCause("spec.template.spec.nodeSelector"), conflictCause("spec.template.spec.domain.cpu.model"),
			conflictCause("spec.template.spec.domain.memory.maxGuest"), conflictCause("annotations.team")}},
		{"a spread the vCPUs cannot fill", sizedVM(func(_ *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
			vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Name: "spread"}
		}), []runtime.Object{clusterInstancetype("u1.small", 3, "1Gi", nil), clusterPreference("spread", v1beta1.VirtualMachinePreferenceSpec{
			CPU: &v1beta1.CPUPreferences{PreferredCPUTopology: &spread, SpreadOptions: &v1beta1.SpreadOptions{Across: &coresThreads}}})},
			[]metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "instancetype.spec.cpu.guest",
				Message: "3 vCPUs provided by the instance type are not divisible by the number of threads per core 2"}}},
		{"a preference wanting more vCPUs than the instancetype has", sizedVM(func(_ *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
			vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Name: "big"}
		}), []runtime.Object{small, clusterPreference("big", v1beta1.VirtualMachinePreferenceSpec{
			Requirements: &v1beta1.PreferenceRequirements{CPU: &v1beta1.CPUPreferenceRequirement{Guest: four}}})},
			[]metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotFound, Field: "spec.instancetype",
				Message: "failure checking preference requirements: insufficient CPU resources of 2 vCPU provided by instance type, preference requires 4 vCPU"}}},
		{"without an instancetype the VM's own topology must meet them", sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
			vm.Spec.Instancetype = nil
			vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Name: "big"}
			s.Domain.Memory = &kubevirtv1.Memory{Guest: &mem}
		}), []runtime.Object{clusterPreference("big", v1beta1.VirtualMachinePreferenceSpec{
			Requirements: &v1beta1.PreferenceRequirements{CPU: &v1beta1.CPUPreferenceRequirement{Guest: four}}})},
			[]metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotFound, Field: "spec.template.spec.domain.cpu.sockets",
				Message: "failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by VirtualMachine, preference requires 4 vCPU provided as sockets"}}},
		{"memory the instancetype lacks", sizedVM(func(_ *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
			vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Name: "hungry"}
		}), []runtime.Object{small, clusterPreference("hungry", v1beta1.VirtualMachinePreferenceSpec{
			Requirements: &v1beta1.PreferenceRequirements{Memory: &v1beta1.MemoryPreferenceRequirement{Guest: resource.MustParse("2Gi")}}})},
			[]metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotFound, Field: "spec.instancetype",
				Message: "failure checking preference requirements: insufficient Memory resources of 1Gi provided by instance type, preference requires 2Gi"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := vmReview(t, c.vm, c.objs...)
			if c.causes == nil {
				require.True(t, resp.Allowed, "%+v", resp.Result)
				return
			}
			require.False(t, resp.Allowed)
			require.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
			require.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason)
			require.Equal(t, c.causes, resp.Result.Details.Causes)
			msgs := make([]string, len(c.causes))
			for i, cs := range c.causes {
				msgs[i] = cs.Message
			}
			require.Equal(t, strings.Join(msgs, ", "), resp.Result.Message)
		})
	}
}

func TestRunningIsAdmittedWithUpstreamsDeprecationWarning(t *testing.T) {
	yes := true
	vm := sizedVM(func(s *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
		vm.Spec.RunStrategy, vm.Spec.Running, vm.Spec.Instancetype = nil, &yes, nil
		s.Domain.Memory = validSpec().Domain.Memory
	})
	resp := vmReview(t, vm)
	require.True(t, resp.Allowed, "%+v", resp.Result)
	require.Equal(t, []string{"spec.running is deprecated, please use spec.runStrategy instead."}, resp.Warnings)
}

func TestAStoredVMKeepsAFieldVirtflowStoppedAcceptingButGainsNoNewOne(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	v := &VMValidator{Decoder: admission.NewDecoder(scheme)}
	update := func(old, vm *kubevirtv1.VirtualMachine) admission.Response {
		o, err := json.Marshal(old)
		require.NoError(t, err)
		n, err := json.Marshal(vm)
		require.NoError(t, err)
		return v.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: admissionv1.Update, Object: runtime.RawExtension{Raw: n}, OldObject: runtime.RawExtension{Raw: o}}})
	}
	withTPM := func(s *kubevirtv1.VirtualMachineInstanceSpec, vm *kubevirtv1.VirtualMachine) {
		vm.Spec.Instancetype = nil
		s.Domain.Memory = validSpec().Domain.Memory
		yes := true
		s.Domain.Devices.TPM = &kubevirtv1.TPMDevice{Persistent: &yes}
	}
	old := sizedVM(withTPM)
	stopped := sizedVM(withTPM)
	halted := kubevirtv1.RunStrategyHalted
	stopped.Spec.RunStrategy = &halted
	resp := update(old, stopped)
	require.True(t, resp.Allowed, "virtctl stop patches a VM stored before persistent TPM was refused: %+v", resp.Result)

	tagged := sizedVM(withTPM)
	tagged.Spec.Template.Spec.Domain.Devices.Disks[0].Tag = "boot"
	resp = update(old, tagged)
	require.False(t, resp.Allowed)
	require.Contains(t, resp.Result.Message, "device role tagging is not supported yet by this virtflow release")
	require.NotContains(t, resp.Result.Message, "persistent TPM state")
}
