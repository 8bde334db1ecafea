package templatevalidation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestParsePath(t *testing.T) {
	for _, s := range []string{"jsonpath::.spec.domain.cpu.cores", "jsonpath::$.spec.domain.cpu.cores"} {
		p, err := ParsePath(s)
		require.NoError(t, err)
		require.Equal(t, ".spec.domain.cpu.cores", p.Expr())
		require.Equal(t, "jsonpath::.spec.domain.cpu.cores", p.String())
		require.True(t, p.IsSet())
	}
	for _, s := range []string{"string-literal", "$.spec.domain.cpu.cores", ".spec.domain.cpu.cores"} {
		_, err := ParsePath(s)
		require.ErrorIs(t, err, ErrInvalidJSONPath, s)
	}
	_, err := ParsePath("jsonpath::random56junk%(*$%&*()")
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrInvalidJSONPath, "syntax errors keep the parser's text")
}

func TestJSONPathLookups(t *testing.T) {
	cdromOnly := func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{cdrom("install", "sata")}
	}
	noDisks := func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Devices.Disks = nil }
	runSingle(t, []singleRule{
		{name: "path absent from every VM", rule: `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.this.path.does.not.exist", "min": 1}`,
			outcome: Failed, detail: "invalid JSONPath", field: ".spec.domain.this.path.does.not.exist"},
		{name: "wildcard over no elements finds nothing", edit: noDisks,
			rule:    `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio"]}`,
			outcome: Failed, detail: "no values were found", field: ".spec.domain.devices.disks[*].disk.bus"},
		{name: "single index", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("a", "virtio"), disk("b", "sata")}
		}, rule: `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[1].disk.bus", "values": ["virtio"]}`,
			outcome: Unsatisfied, detail: "Some of [sata] are not in [virtio]", field: ".spec.domain.devices.disks[1].disk.bus"},
		{name: "wildcard skips elements lacking the field", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("a", "virtio"), cdrom("b", "sata"), disk("c", "scsi")}
		}, rule: `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio"]}`,
			outcome: Unsatisfied, detail: "Some of [virtio, scsi] are not in [virtio]", field: ".spec.domain.devices.disks[*].disk.bus"},
		{name: "filter expression", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("root", "virtio"), disk("data", "sata")}
		}, rule: `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[?(@.name==\"data\")].disk.bus", "values": ["virtio"]}`,
			outcome: Unsatisfied, detail: "Some of [sata] are not in [virtio]", field: `.spec.domain.devices.disks[?(@.name=="data")].disk.bus`},
		{name: "absent optional field reads as its zero value",
			rule:    `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1}`,
			outcome: Unsatisfied, detail: "value 0 is lower than minimum [1]", field: ".spec.domain.cpu.cores"},
		{name: "absent optional string reads as empty", rule: `{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.firmware.serial", "minLength": 1}`,
			outcome: Unsatisfied, detail: "Lengths of some strings are not in interval [1, N/A]", field: ".spec.domain.firmware.serial"},
		{name: "absent optional field reads as its API default",
			rule:    `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.clock.timer.hpet.present", "values": ["x"]}`,
			outcome: Unsatisfied, detail: "Some of [<*bool Value>] are not in [x]", field: ".spec.domain.clock.timer.hpet.present"},
		{name: "bus of every disk when none is a plain disk comes from the 64-disk reference", edit: cdromOnly,
			rule:    `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio"]}`,
			outcome: Unsatisfied, detail: "Some of [" + strings.Repeat(", ", 63) + "] are not in [virtio]", field: ".spec.domain.devices.disks[*].disk.bus"},
	})
}

func TestValidGatesTheRule(t *testing.T) {
	const bus = `"path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "valid": "jsonpath::.spec.domain.devices.disks[*].disk.bus"`
	runSingle(t, []singleRule{
		{name: "valid path absent skips even a broken rule",
			rule:    `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.nothing", "valid": "jsonpath::.spec.domain.cpu.model", "min": "jsonpath::.spec.nothing"}`,
			outcome: Skipped},
		{name: "valid ending at a nil pointer counts as present",
			rule:    `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "valid": "jsonpath::.spec.domain.cpu", "min": 1}`,
			outcome: Unsatisfied, detail: "value 0 is lower than minimum [1]", field: ".spec.domain.cpu.cores"},
		{name: "valid path present applies the rule", edit: cpu(1, 1),
			rule:    `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "valid": "jsonpath::.spec.domain.cpu", "min": 2}`,
			outcome: Unsatisfied, detail: "value 1 is lower than minimum [2]", field: ".spec.domain.cpu.cores"},
		{name: "valid is checked on the VM only, not the reference",
			rule:    `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "valid": "jsonpath::.spec.domain.cpu.cores", "min": 2}`,
			outcome: Skipped},
		{name: "cdrom-only VM skips the disk bus rule", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks = []kubevirtv1.Disk{cdrom("install", "sata")}
		}, rule: `{"name": "r", "rule": "enum", "message": "m", ` + bus + `, "values": ["virtio"]}`, outcome: Skipped},
		{name: "valid matching an empty list skips", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Devices.Disks = nil },
			rule: `{"name": "r", "rule": "enum", "message": "m", ` + bus + `, "values": ["virtio"]}`, outcome: Skipped},
		{name: "valid on a defaulted field never skips", edit: cpu(0, 0),
			rule:    `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.threads", "valid": "jsonpath::.spec.domain.cpu.threads", "max": 0}`,
			outcome: Unsatisfied, detail: "value 1 is higher than maximum [0]", field: ".spec.domain.cpu.threads"},
	})
}

func TestRuleSharedBetweenEvaluationsGivesSameResult(t *testing.T) {
	// A compiled jsonpath is mutated by evaluation (negative indexes are
	// resolved in place), so rules must not carry one between VMs.
	rules := mustParse(t, `[{"name": "r", "rule": "enum", "message": "m",
		"path": "jsonpath::.spec.domain.devices.disks[-1].disk.bus", "values": ["virtio"]}]`)
	three := vmWith(t, func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("a", "virtio"), disk("b", "virtio"), disk("c", "sata")}
	})
	require.Equal(t, "Some of [sata] are not in [virtio]", Evaluate(three, rules).Reports[0].Detail)
	two := vmWith(t, func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("a", "scsi"), disk("b", "virtio")}
	})
	require.Equal(t, "All [virtio] are in [virtio]", Evaluate(two, rules).Reports[0].Detail)
	require.Equal(t, "Some of [sata] are not in [virtio]", Evaluate(three, rules).Reports[0].Detail)
}
