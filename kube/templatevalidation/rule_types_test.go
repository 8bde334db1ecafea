package templatevalidation

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// singleRule is one rule evaluated on baseVM after edit. Its message is
// "m", so a denial's cause reads "m: <detail>" on the rule's path.
type singleRule struct {
	name    string
	edit    func(*kubevirtv1.VirtualMachineInstanceSpec)
	rule    string
	outcome Outcome
	detail  string
	field   string
}

func runSingle(t *testing.T, cases []singleRule) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Evaluate(vmWith(t, tc.edit), mustParse(t, "["+tc.rule+"]"))
			require.Equal(t, []Report{{Rule: "r", Outcome: tc.outcome, Detail: tc.detail}}, res.Reports)
			require.Empty(t, res.Warnings)
			if tc.outcome == Satisfied || tc.outcome == Skipped {
				require.Empty(t, res.Causes)
				return
			}
			require.Equal(t, []metav1.StatusCause{cause(tc.field, "m: "+tc.detail)}, res.Causes)
		})
	}
}

func memoryGuest(q string) func(*kubevirtv1.VirtualMachineInstanceSpec) {
	return func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		v := resource.MustParse(q)
		s.Domain.Memory.Guest = &v
	}
}

func cpu(sockets, cores uint32) func(*kubevirtv1.VirtualMachineInstanceSpec) {
	return func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.CPU = &kubevirtv1.CPU{Sockets: sockets, Cores: cores}
	}
}

func ports(p ...int32) func(*kubevirtv1.VirtualMachineInstanceSpec) {
	return func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		iface := kubevirtv1.Interface{Name: "default"}
		for _, n := range p {
			iface.Ports = append(iface.Ports, kubevirtv1.Port{Port: n})
		}
		s.Domain.Devices.Interfaces = []kubevirtv1.Interface{iface}
	}
}

func TestIntegerRule(t *testing.T) {
	const guest = `"path": "jsonpath::.spec.domain.memory.guest"`
	const requests = `"path": "jsonpath::.spec.domain.resources.requests.memory"`
	const cores = `"path": "jsonpath::.spec.domain.cpu.cores"`
	const portsPath = `"path": "jsonpath::.spec.domain.devices.interfaces[*].ports[*].port"`
	runSingle(t, []singleRule{
		{name: "quantity within min", rule: `{"name": "r", "rule": "integer", "message": "m", ` + guest + `, "min": 1073741824}`,
			outcome: Satisfied, detail: "All values [2147483648] are in interval [1073741824, N/A]"},
		{name: "quantity below min", edit: memoryGuest("1Gi"),
			rule:    `{"name": "r", "rule": "integer", "message": "m", ` + guest + `, "min": 2147483648}`,
			outcome: Unsatisfied, detail: "value 1073741824 is lower than minimum [2147483648]", field: ".spec.domain.memory.guest"},
		{name: "map-held quantity above max", rule: `{"name": "r", "rule": "integer", "message": "m", ` + requests + `, "min": 1, "max": 67108864}`,
			outcome: Unsatisfied, detail: "value 128000000 is higher than maximum [67108864]", field: ".spec.domain.resources.requests.memory"},
		{name: "max only", edit: cpu(1, 4), rule: `{"name": "r", "rule": "integer", "message": "m", ` + cores + `, "max": 8}`,
			outcome: Satisfied, detail: "All values [4] are in interval [N/A, 8]"},
		{name: "every value reported, in-range ones as empty slots", edit: ports(22, 80, 8080),
			rule:    `{"name": "r", "rule": "integer", "message": "m", ` + portsPath + `, "min": 23, "max": 8000}`,
			outcome: Unsatisfied, field: ".spec.domain.devices.interfaces[*].ports[*].port",
			detail: "value 22 is lower than minimum [23], , value 8080 is higher than maximum [8000]"},
		{name: "max from a jsonpath", edit: cpu(2, 4),
			rule:    `{"name": "r", "rule": "integer", "message": "m", ` + cores + `, "max": "jsonpath::.spec.domain.cpu.sockets"}`,
			outcome: Unsatisfied, detail: "value 4 is higher than maximum [2]", field: ".spec.domain.cpu.cores"},
		{name: "min from a jsonpath to a quantity",
			rule:    `{"name": "r", "rule": "integer", "message": "m", ` + requests + `, "min": "jsonpath::.spec.domain.memory.guest"}`,
			outcome: Unsatisfied, detail: "value 128000000 is lower than minimum [2147483648]", field: ".spec.domain.resources.requests.memory"},
		{name: "min path matching several values", edit: ports(22, 80),
			rule:    `{"name": "r", "rule": "integer", "message": "m", ` + cores + `, "min": "jsonpath::.spec.domain.devices.interfaces[0].ports[*].port"}`,
			outcome: Failed, detail: "expected one value, found 2", field: ".spec.domain.cpu.cores"},
		{name: "min path that exists nowhere",
			rule:    `{"name": "r", "rule": "integer", "message": "m", ` + cores + `, "min": "jsonpath::.spec.domain.nothing"}`,
			outcome: Failed, detail: "invalid JSONPath", field: ".spec.domain.cpu.cores"},
		{name: "string value", rule: `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "min": 1}`,
			outcome: Failed, detail: "mismatching type: string, not int or resource.Quantity", field: ".spec.domain.machine.type"},
		{name: "fractional quantity", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100m")}
		}, rule: `{"name": "r", "rule": "integer", "message": "m", ` + requests + `, "min": 1}`,
			outcome: Failed, detail: "mismatching type: resource.Quantity, not int or resource.Quantity", field: ".spec.domain.resources.requests.memory"},
		{name: "nil quantity beside other memory fields", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Memory = &kubevirtv1.Memory{Hugepages: &kubevirtv1.Hugepages{PageSize: "2Mi"}}
		}, rule: `{"name": "r", "rule": "integer", "message": "m", ` + guest + `, "min": 1}`,
			outcome: Failed, detail: "mismatching type: *resource.Quantity, not int or resource.Quantity", field: ".spec.domain.memory.guest"},
	})
}

func TestStringRule(t *testing.T) {
	const machine = `"path": "jsonpath::.spec.domain.machine.type"`
	runSingle(t, []singleRule{
		{name: "length within bounds", rule: `{"name": "r", "rule": "string", "message": "m", ` + machine + `, "minLength": 1, "maxLength": 3}`,
			outcome: Satisfied, detail: "Lengts of all strings are in interval [1, 3]"},
		{name: "one of several too long", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("root", "virtio"), disk("cloudinit", "virtio")}
		}, rule: `{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].name", "maxLength": 5}`,
			outcome: Unsatisfied, detail: "Lengths of some strings are not in interval [N/A, 5]", field: ".spec.domain.devices.disks[*].name"},
		{name: "minLength from a jsonpath", edit: cpu(1, 4),
			rule:    `{"name": "r", "rule": "string", "message": "m", ` + machine + `, "minLength": "jsonpath::.spec.domain.cpu.cores"}`,
			outcome: Unsatisfied, detail: "Lengths of some strings are not in interval [4, N/A]", field: ".spec.domain.machine.type"},
		{name: "non-string value is measured as reflect's placeholder", edit: cpu(1, 4),
			rule:    `{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "maxLength": 13}`,
			outcome: Unsatisfied, detail: "Lengths of some strings are not in interval [N/A, 13]", field: ".spec.domain.cpu.cores"},
		{name: "no bounds always holds", rule: `{"name": "r", "rule": "string", "message": "m", ` + machine + `}`,
			outcome: Satisfied, detail: "Lengts of all strings are in interval [N/A, N/A]"},
	})
}

func TestEnumRule(t *testing.T) {
	const bus = `"path": "jsonpath::.spec.domain.devices.disks[*].disk.bus"`
	sata := func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("root", "virtio"), disk("data", "sata")}
	}
	runSingle(t, []singleRule{
		{name: "all allowed", rule: `{"name": "r", "rule": "enum", "message": "m", ` + bus + `, "values": ["virtio", "sata", "scsi"]}`,
			outcome: Satisfied, detail: "All [virtio, virtio] are in [virtio, sata, scsi]"},
		{name: "one not allowed", edit: sata, rule: `{"name": "r", "rule": "enum", "message": "m", ` + bus + `, "values": ["virtio"]}`,
			outcome: Unsatisfied, detail: "Some of [virtio, sata] are not in [virtio]", field: ".spec.domain.devices.disks[*].disk.bus"},
		{name: "case sensitive", rule: `{"name": "r", "rule": "enum", "message": "m", ` + bus + `, "values": ["VirtIO"]}`,
			outcome: Unsatisfied, detail: "Some of [virtio, virtio] are not in [VirtIO]", field: ".spec.domain.devices.disks[*].disk.bus"},
		{name: "value from a jsonpath", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Machine.Type = "virtio" },
			rule:    `{"name": "r", "rule": "enum", "message": "m", ` + bus + `, "values": ["jsonpath::.spec.domain.machine.type"]}`,
			outcome: Satisfied, detail: "All [virtio, virtio] are in [virtio]"},
		{name: "value path matching several values", rule: `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "values": ["jsonpath::.spec.domain.devices.disks[*].name"]}`,
			outcome: Failed, detail: "expected one value, found 2", field: ".spec.domain.machine.type"},
		{name: "no values allowed", rule: `{"name": "r", "rule": "enum", "message": "m", ` + bus + `}`,
			outcome: Unsatisfied, detail: "Some of [virtio, virtio] are not in []", field: ".spec.domain.devices.disks[*].disk.bus"},
		{name: "non-string value renders as reflect's placeholder", edit: cpu(1, 4),
			rule:    `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "values": ["4"]}`,
			outcome: Unsatisfied, detail: "Some of [<uint32 Value>] are not in [4]", field: ".spec.domain.cpu.cores"},
	})
}

func TestRegexRule(t *testing.T) {
	const bus = `"path": "jsonpath::.spec.domain.devices.disks[*].disk.bus"`
	runSingle(t, []singleRule{
		{name: "all match", rule: `{"name": "r", "rule": "regex", "message": "m", ` + bus + `, "regex": "virtio|sata"}`,
			outcome: Satisfied, detail: "All [virtio, virtio] match virtio|sata"},
		{name: "no match", rule: `{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "regex": "^pc-q35"}`,
			outcome: Unsatisfied, detail: "Some of [q35] do not match ^pc-q35", field: ".spec.domain.machine.type"},
		{name: "unanchored regex matches a substring", rule: `{"name": "r", "rule": "regex", "message": "m", ` + bus + `, "regex": "rti"}`,
			outcome: Satisfied, detail: "All [virtio, virtio] match rti"},
		{name: "invalid regex", rule: `{"name": "r", "rule": "regex", "message": "m", ` + bus + `, "regex": "("}`,
			outcome: Failed, detail: "error parsing regexp: missing closing ): `(`", field: ".spec.domain.devices.disks[*].disk.bus"},
		{name: "no regex matches everything", rule: `{"name": "r", "rule": "regex", "message": "m", ` + bus + `}`,
			outcome: Satisfied, detail: "All [virtio, virtio] match "},
	})
}
