package virtadmission

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func preset(name string, selector map[string]string, domain kubevirtv1.DomainSpec) *kubevirtv1.VirtualMachineInstancePreset {
	return &kubevirtv1.VirtualMachineInstancePreset{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: kubevirtv1.VirtualMachineInstancePresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: selector}, Domain: &domain},
	}
}

func presetVMI(labels map[string]string) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachineInstance"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vmi", Labels: labels},
		Spec:       validSpec(),
	}
}

func presetReader(t *testing.T, objs ...client.Object) client.Reader {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

var flavor = map[string]string{"flavor": "small"}

func TestAMatchingPresetShapesTheVMIAndIsAnnotated(t *testing.T) {
	p := preset("small", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	vmi := presetVMI(flavor)
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, p), vmi))
	assert.Equal(t, uint32(2), vmi.Spec.Domain.CPU.Cores)
	assert.Equal(t, "kubevirt.io/v1", vmi.Annotations["virtualmachinepreset.kubevirt.io/small"])
	assert.Equal(t, []string{"kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2."}, presetWarnings(vmi))
}

func TestPresetsApplyOnlyToMatchingVMIsOfTheirNamespace(t *testing.T) {
	cpu := kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}}
	other := preset("other-ns", nil, cpu)
	other.Namespace = "elsewhere"
	cases := map[string]struct {
		objs   []client.Object
		labels map[string]string
	}{
		"labels differ":         {[]client.Object{preset("small", flavor, cpu)}, map[string]string{"flavor": "large"}},
		"no labels":             {[]client.Object{preset("small", flavor, cpu)}, nil},
		"another namespace":     {[]client.Object{other}, flavor},
		"expression mismatches": {[]client.Object{exprPreset("small", metav1.LabelSelectorOpNotIn, cpu)}, flavor},
	}
	for name, c := range cases {
		vmi := presetVMI(c.labels)
		require.NoError(t, ApplyPresets(context.Background(), presetReader(t, c.objs...), vmi), name)
		assert.Nil(t, vmi.Spec.Domain.CPU, name)
		assert.Empty(t, vmi.Annotations, name)
		assert.Empty(t, presetWarnings(vmi), name)
	}
}

func exprPreset(name string, op metav1.LabelSelectorOperator, d kubevirtv1.DomainSpec) *kubevirtv1.VirtualMachineInstancePreset {
	p := preset(name, nil, d)
	p.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "flavor", Operator: op, Values: []string{"small"}}}
	return p
}

func TestAnEmptySelectorMatchesEveryVMI(t *testing.T) {
	vmi := presetVMI(nil)
	p := preset("all", nil, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 3}})
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, p), vmi))
	assert.Equal(t, uint32(3), vmi.Spec.Domain.CPU.Cores)
}

func TestAnExcludedVMIGetsNoPreset(t *testing.T) {
	vmi := presetVMI(flavor)
	vmi.Annotations = map[string]string{"virtualmachineinstancepresets.admission.kubevirt.io/exclude": "true"}
	p := preset("small", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, p), vmi))
	assert.Nil(t, vmi.Spec.Domain.CPU)

	vmi.Annotations[PresetExclusionAnnotation] = "false"
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, p), vmi))
	assert.Equal(t, uint32(2), vmi.Spec.Domain.CPU.Cores, "only \"true\" excludes")
}

func TestNoReaderAppliesNoPresets(t *testing.T) {
	vmi := presetVMI(flavor)
	require.NoError(t, ApplyPresets(context.Background(), nil, vmi))
	assert.Empty(t, vmi.Annotations)
}

func TestABogusSelectorFailsTheVMI(t *testing.T) {
	p := exprPreset("bogus", "Bogus", kubevirtv1.DomainSpec{})
	err := ApplyPresets(context.Background(), presetReader(t, p), presetVMI(flavor))
	require.ErrorContains(t, err, `"Bogus" is not a valid label selector operator`)
}

func TestEveryMergedPartIsCopiedIntoAVMIWithoutIt(t *testing.T) {
	yes := true
	policy := kubevirtv1.IOThreadsPolicyShared
	utc := &kubevirtv1.ClockOffsetUTC{}
	p := kubevirtv1.DomainSpec{
		Resources: kubevirtv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}},
		CPU:       &kubevirtv1.CPU{Cores: 2, Sockets: 1},
		Firmware:  &kubevirtv1.Firmware{Serial: "abc"},
		Clock: &kubevirtv1.Clock{ClockOffset: kubevirtv1.ClockOffset{UTC: utc},
			Timer: &kubevirtv1.Timer{RTC: &kubevirtv1.RTCTimer{Enabled: &yes}}},
		Features:        &kubevirtv1.Features{ACPI: kubevirtv1.FeatureState{Enabled: &yes}},
		Devices:         kubevirtv1.Devices{Watchdog: &kubevirtv1.Watchdog{Name: "wd"}},
		IOThreadsPolicy: &policy,
	}
	v := kubevirtv1.DomainSpec{}
	applied, err := mergeDomain(&p, &v)
	require.NoError(t, err)
	assert.True(t, applied)
	want := p.DeepCopy()
	assert.Equal(t, want, &v)
	assert.NotSame(t, p.CPU, v.CPU, "the VMI gets copies")
}

func TestAPartTheVMISetsIsKeptAndNotCountedAsApplied(t *testing.T) {
	p := kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}}
	v := kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 4}}
	applied, err := mergeDomain(&p, &v)
	assert.False(t, applied)
	require.Error(t, err)
	assert.Regexp(t, `^spec.cpu: &\{2 .*\} != &\{4 .*\}$`, err.Error(), "both parts printed, the preset's first")
	assert.Equal(t, uint32(4), v.CPU.Cores)
}

func TestAVMIRequestingAnythingKeepsAllItsRequests(t *testing.T) {
	p := kubevirtv1.DomainSpec{Resources: kubevirtv1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceMemory: resource.MustParse("512Mi"), corev1.ResourceCPU: resource.MustParse("1")}}}
	v := kubevirtv1.DomainSpec{Resources: kubevirtv1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceMemory: resource.MustParse("512Mi")}}}
	applied, err := mergeDomain(&p, &v)
	assert.NoError(t, err, "the one request both set agrees")
	assert.False(t, applied, "the preset's CPU request is not added")
	assert.NotContains(t, v.Resources.Requests, corev1.ResourceCPU)
}

func TestAPresetPartlyOverriddenIsStillAnnotated(t *testing.T) {
	p := preset("mixed", flavor, kubevirtv1.DomainSpec{
		CPU:      &kubevirtv1.CPU{Cores: 2},
		Firmware: &kubevirtv1.Firmware{Serial: "preset"}})
	vmi := presetVMI(flavor)
	vmi.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 4}
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, p), vmi))
	assert.Equal(t, uint32(4), vmi.Spec.Domain.CPU.Cores, "the VMI's own CPU wins")
	assert.Equal(t, "preset", vmi.Spec.Domain.Firmware.Serial)
	assert.Contains(t, vmi.Annotations, "virtualmachinepreset.kubevirt.io/mixed")
}

func TestAPresetWithNothingAppliedIsNotAnnotated(t *testing.T) {
	p := preset("cpu", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	vmi := presetVMI(flavor)
	vmi.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 4}
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, p), vmi))
	assert.Empty(t, vmi.Annotations)
}

func TestAClockTimerIsMergedIntoAVMIClockWithout(t *testing.T) {
	yes := true
	timer := &kubevirtv1.Timer{HPET: &kubevirtv1.HPETTimer{Enabled: &yes}}
	p := kubevirtv1.DomainSpec{Clock: &kubevirtv1.Clock{Timer: timer}}
	v := kubevirtv1.DomainSpec{Clock: &kubevirtv1.Clock{}}
	applied, err := mergeDomain(&p, &v)
	require.NoError(t, err)
	assert.True(t, applied)
	assert.Equal(t, timer, v.Clock.Timer)
}

func TestSeveralPresetsEachGetTheirAnnotation(t *testing.T) {
	a := preset("a", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	b := preset("b", nil, kubevirtv1.DomainSpec{Firmware: &kubevirtv1.Firmware{Serial: "b"}})
	vmi := presetVMI(flavor)
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, a, b), vmi))
	assert.Equal(t, map[string]string{
		"virtualmachinepreset.kubevirt.io/a": "kubevirt.io/v1",
		"virtualmachinepreset.kubevirt.io/b": "kubevirt.io/v1",
	}, vmi.Annotations)
}

func TestPresetsThatAgreeDoNotConflict(t *testing.T) {
	a := preset("a", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	b := preset("b", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}, Firmware: &kubevirtv1.Firmware{Serial: "b"}})
	vmi := presetVMI(flavor)
	require.NoError(t, ApplyPresets(context.Background(), presetReader(t, a, b), vmi))
	assert.Len(t, vmi.Annotations, 2)
}

func TestConflictingPresetsRefuseTheVMIAndApplyNothing(t *testing.T) {
	a := preset("a", flavor, kubevirtv1.DomainSpec{Firmware: &kubevirtv1.Firmware{Serial: "a"}})
	b := preset("b", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	c := preset("c", flavor, kubevirtv1.DomainSpec{Firmware: &kubevirtv1.Firmware{Serial: "c"}})
	vmi := presetVMI(flavor)
	err := ApplyPresets(context.Background(), presetReader(t, a, b, c), vmi)
	require.Error(t, err)
	assert.Regexp(t, `^VirtualMachinePresets cannot be applied due to conflicts: presets 'c' and 'a' conflict: spec.firmware: &\{.*\} != &\{.*\}$`, err.Error())
	assert.Nil(t, vmi.Spec.Domain.CPU, "b agrees with both yet is not applied either")
	assert.Nil(t, vmi.Spec.Domain.Firmware)
	assert.Empty(t, vmi.Annotations)
}

func TestRequestsWrittenTwoWaysConflictAsUpstream(t *testing.T) {
	var gi, mi resource.Quantity
	require.NoError(t, json.Unmarshal([]byte(`"1Gi"`), &gi))
	require.NoError(t, json.Unmarshal([]byte(`"1024Mi"`), &mi))
	p := kubevirtv1.DomainSpec{Resources: kubevirtv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: gi}}}
	v := kubevirtv1.DomainSpec{Resources: kubevirtv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: mi}}}
	require.ErrorContains(t, domainConflicts(&p, &v), "spec.resources.requests[memory]: ")
	assert.NoError(t, domainConflicts(&p, p.DeepCopy()))
}

func TestDomainConflictsNameEachPart(t *testing.T) {
	yes, no := true, false
	shared, auto := kubevirtv1.IOThreadsPolicyShared, kubevirtv1.IOThreadsPolicyAuto
	p := kubevirtv1.DomainSpec{
		Clock:    &kubevirtv1.Clock{ClockOffset: kubevirtv1.ClockOffset{UTC: &kubevirtv1.ClockOffsetUTC{}}, Timer: &kubevirtv1.Timer{RTC: &kubevirtv1.RTCTimer{Enabled: &yes}}},
		Features: &kubevirtv1.Features{ACPI: kubevirtv1.FeatureState{Enabled: &yes}}, Devices: kubevirtv1.Devices{Watchdog: &kubevirtv1.Watchdog{Name: "a"}},
		IOThreadsPolicy: &shared,
	}
	v := kubevirtv1.DomainSpec{
		Clock:    &kubevirtv1.Clock{Timer: &kubevirtv1.Timer{RTC: &kubevirtv1.RTCTimer{Enabled: &no}}},
		Features: &kubevirtv1.Features{ACPI: kubevirtv1.FeatureState{Enabled: &no}}, Devices: kubevirtv1.Devices{Watchdog: &kubevirtv1.Watchdog{Name: "b"}},
		IOThreadsPolicy: &auto,
	}
	err := domainConflicts(&p, &v)
	require.Error(t, err)
	for _, part := range []string{"spec.clock.clockoffset: ", "spec.clock.timer: ", "spec.features: ", "spec.devices.watchdog: ", "spec.ioThreadsPolicy: "} {
		assert.Contains(t, err.Error(), part)
	}
}

func vmiMutate(t *testing.T, r client.Reader, vmi *kubevirtv1.VirtualMachineInstance) admission.Response {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	raw, err := json.Marshal(vmi)
	require.NoError(t, err)
	m := &VMIMutator{Decoder: admission.NewDecoder(scheme), Reader: r}
	return m.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}}})
}

func TestTheVMIMutatorAppliesPresetsBeforeDefaultsAndWarns(t *testing.T) {
	p := preset("small", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	resp := vmiMutate(t, presetReader(t, p), presetVMI(flavor))
	require.True(t, resp.Allowed, "%v", resp.Result)
	assert.Equal(t, []string{presetDeprecationWarning}, resp.Warnings)
	patched := map[string]any{}
	for _, op := range resp.Patches {
		patched[op.Path] = op.Value
	}
	assert.Equal(t, "kubevirt.io/v1", patched["/metadata/annotations"].(map[string]any)["virtualmachinepreset.kubevirt.io/small"])
	assert.Contains(t, patched, "/spec/domain/cpu", "a VMI without a CPU gets the preset's, not a default one")
	assert.EqualValues(t, 2, patched["/spec/domain/cpu"].(map[string]any)["cores"])
}

func TestTheVMIMutatorRefusesConflictingPresetsWith422(t *testing.T) {
	a := preset("a", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})
	b := preset("b", flavor, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 4}})
	resp := vmiMutate(t, presetReader(t, a, b), presetVMI(flavor))
	require.False(t, resp.Allowed)
	assert.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
	assert.Contains(t, resp.Result.Message, "VirtualMachinePresets cannot be applied due to conflicts: presets 'b' and 'a' conflict: spec.cpu: ")
}

func TestTheVMIMutatorWithoutPresetsDoesNotWarn(t *testing.T) {
	resp := vmiMutate(t, presetReader(t), presetVMI(flavor))
	require.True(t, resp.Allowed)
	assert.Empty(t, resp.Warnings)
}
