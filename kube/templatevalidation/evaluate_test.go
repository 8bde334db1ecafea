package templatevalidation

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestNoRulesAdmitEverything(t *testing.T) {
	res := Evaluate(vmWith(t, nil), nil)
	require.False(t, res.Denied())
	require.Empty(t, res.Reports)
	require.Nil(t, res.Status())
	require.Empty(t, res.Message())
}

func TestMalformedRulesDeny(t *testing.T) {
	const cores = `"path": "jsonpath::.spec.domain.cpu.cores"`
	cases := []struct {
		name   string
		rules  string
		causes []metav1.StatusCause
	}{
		{"unknown rule type", `[{"name": "a", "rule": "value-set", "message": "m", ` + cores + `}]`,
			[]metav1.StatusCause{cause(".spec.domain.cpu.cores", "m: unrecognized Rule type")}},
		{"missing rule type", `[{"name": "a", "message": "m", ` + cores + `}]`,
			[]metav1.StatusCause{cause(".spec.domain.cpu.cores", "m: unrecognized Rule type")}},
		{"missing message", `[{"name": "a", "rule": "integer", ` + cores + `, "min": 1}]`,
			[]metav1.StatusCause{cause(".spec.domain.cpu.cores", ": missing required key")}},
		{"missing path", `[{"name": "a", "rule": "integer", "message": "m", "min": 1}]`,
			[]metav1.StatusCause{cause("", "m: missing required key")}},
		{"duplicate name, checked before the rule itself", `[
			{"name": "a", "rule": "integer", "message": "m1", ` + cores + `, "min": 0},
			{"name": "a", "rule": "bogus", "message": "m2", "path": "jsonpath::.spec.domain.machine.type"}]`,
			[]metav1.StatusCause{cause(".spec.domain.machine.type", "m2: duplicate Rule Name")}},
		{"unnamed rules collide", `[
			{"rule": "integer", "message": "m1", ` + cores + `, "min": 0},
			{"rule": "integer", "message": "m2", ` + cores + `, "min": 0}]`,
			[]metav1.StatusCause{cause(".spec.domain.cpu.cores", "m2: duplicate Rule Name")}},
		{"malformed rule denies even when its valid path is absent", `[{"name": "a", "rule": "nope", "message": "m", ` + cores + `,
			"valid": "jsonpath::.spec.nothing"}]`,
			[]metav1.StatusCause{cause(".spec.domain.cpu.cores", "m: unrecognized Rule type")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Evaluate(vmWith(t, nil), mustParse(t, tc.rules))
			require.Equal(t, tc.causes, res.Causes)
			require.True(t, res.Denied())
		})
	}
}

func TestJustWarning(t *testing.T) {
	const warnBus = `{"name": "w", "rule": "enum", "message": "prefer virtio", "justWarning": true,
		"path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio"]}`
	const hardCores = `{"name": "h", "rule": "integer", "message": "enough cores",
		"path": "jsonpath::.spec.domain.cpu.cores", "min": 6, "max": 8}`
	const brokenWarn = `{"name": "b", "rule": "enum", "message": "broken", "justWarning": true,
		"path": "jsonpath::.spec.domain.devices.some.non.existing.path", "values": ["sata"]}`
	const okCores = `{"name": "ok", "rule": "integer", "message": "enough cores",
		"path": "jsonpath::.spec.domain.cpu.cores", "min": 0, "max": 8}`
	sata := func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("root", "sata")}
	}
	cases := []struct {
		name     string
		rules    string
		causes   []metav1.StatusCause
		warnings []string
	}{
		{name: "unsatisfied warning admits and warns", rules: "[" + warnBus + "]",
			warnings: []string{"prefer virtio: Some of [sata] are not in [virtio]"}},
		{name: "satisfied warning is silent", rules: `[{"name": "w", "rule": "enum", "message": "m", "justWarning": true,
			"path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["sata"]}]`},
		{name: "once denied, the warning is a cause too", rules: "[" + warnBus + "," + hardCores + "]",
			causes: []metav1.StatusCause{
				cause(".spec.domain.devices.disks[*].disk.bus", "prefer virtio: Some of [sata] are not in [virtio]"),
				cause(".spec.domain.cpu.cores", "enough cores: value 0 is lower than minimum [6]"),
			},
			warnings: []string{"prefer virtio: Some of [sata] are not in [virtio]"}},
		{name: "a warning rule that cannot be evaluated denies", rules: "[" + brokenWarn + "," + okCores + "]",
			causes: []metav1.StatusCause{cause(".spec.domain.devices.some.non.existing.path", "broken: invalid JSONPath")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Evaluate(vmWith(t, sata), mustParse(t, tc.rules))
			require.Equal(t, tc.causes, res.Causes)
			require.Equal(t, tc.warnings, res.Warnings)
			require.Equal(t, len(tc.causes) > 0, res.Denied())
		})
	}
}

func TestStatusIsUpstreamsDenial(t *testing.T) {
	rules := mustParse(t, `[
		{"name": "mem", "rule": "integer", "message": "Memory size too small", "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 1073741824},
		{"name": "machine", "rule": "enum", "message": "machine type must be a supported value", "path": "jsonpath::.spec.domain.machine.type", "values": ["pc"]},
		{"name": "fine", "rule": "string", "message": "never shown", "path": "jsonpath::.spec.domain.machine.type", "minLength": 1}]`)
	res := Evaluate(vmWith(t, nil), rules)
	want := []metav1.StatusCause{
		cause(".spec.domain.resources.requests.memory", "Memory size too small: value 128000000 is lower than minimum [1073741824]"),
		cause(".spec.domain.machine.type", "machine type must be a supported value: Some of [q35] are not in [pc]"),
	}
	require.Equal(t, &metav1.Status{
		Message: "Memory size too small: value 128000000 is lower than minimum [1073741824], " +
			"machine type must be a supported value: Some of [q35] are not in [pc]",
		Reason:  metav1.StatusReasonInvalid,
		Code:    http.StatusUnprocessableEntity,
		Details: &metav1.StatusDetails{Causes: want},
	}, res.Status())
	require.Equal(t, []Report{
		{Rule: "mem", Outcome: Unsatisfied, Detail: "value 128000000 is lower than minimum [1073741824]"},
		{Rule: "machine", Outcome: Unsatisfied, Detail: "Some of [q35] are not in [pc]"},
		{Rule: "fine", Outcome: Satisfied, Detail: "Lengts of all strings are in interval [1, N/A]"},
	}, res.Reports)
}

func TestCPUTopologyIsDefaultedOnACopy(t *testing.T) {
	rules := mustParse(t, `[
		{"name": "s", "rule": "integer", "message": "sockets", "path": "jsonpath::.spec.domain.cpu.sockets", "min": 1},
		{"name": "c", "rule": "integer", "message": "cores", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1},
		{"name": "t", "rule": "integer", "message": "threads", "path": "jsonpath::.spec.domain.cpu.threads", "min": 1}]`)
	vm := vmWith(t, cpu(0, 0))
	res := Evaluate(vm, rules)
	require.False(t, res.Denied(), res.Causes)
	require.Equal(t, &kubevirtv1.CPU{}, vm.Spec.Template.Spec.Domain.CPU, "the caller's VM is not modified")
}

func TestVMWithoutTemplateReadsTheReference(t *testing.T) {
	rules := mustParse(t, `[{"name": "c", "rule": "integer", "message": "cores", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1}]`)
	for name, vm := range map[string]*kubevirtv1.VirtualMachine{"nil VM": nil, "no template": {}} {
		res := Evaluate(vm, rules)
		require.Equal(t, []metav1.StatusCause{cause(".spec.domain.cpu.cores", "cores: value 0 is lower than minimum [1]")}, res.Causes, name)
	}
}
