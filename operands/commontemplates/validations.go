package commontemplates

import (
	"encoding/json"
)

// rule is one entry of the vm.kubevirt.io/validations annotation, in the
// grammar of SSP's template validator. Field order follows upstream's
// templates so the JSON reads the same.
type rule struct {
	Name        string   `json:"name"`
	Path        string   `json:"path"`
	Valid       string   `json:"valid,omitempty"`
	Rule        string   `json:"rule"`
	Message     string   `json:"message"`
	Min         *int64   `json:"min,omitempty"`
	Values      []string `json:"values,omitempty"`
	JustWarning bool     `json:"justWarning,omitempty"`
}

// minMemory is the rule every template carries: at least the OS's minimum
// RAM from osinfo.
func minMemory(bytes int64) rule {
	return rule{
		Name: "minimal-required-memory", Path: "jsonpath::.spec.domain.memory.guest",
		Rule: "integer", Message: "This VM requires more memory.", Min: &bytes,
	}
}

// windowsBusRules are the disk and CD-ROM bus rules of every Windows
// template: virtio is advised, SATA and SCSI work, CD-ROMs need SATA.
func windowsBusRules() []rule {
	const disks = "jsonpath::.spec.domain.devices.disks[*].disk.bus"
	const cdroms = "jsonpath::.spec.domain.devices.disks[*].cdrom.bus"
	return []rule{
		{
			Name: "windows-virtio-bus", Path: disks, Valid: disks, Rule: "enum",
			Message: "virtio disk bus type has better performance, install virtio drivers in VM and change bus type",
			Values:  []string{"virtio"}, JustWarning: true,
		},
		{
			Name: "windows-disk-bus", Path: disks, Valid: disks, Rule: "enum",
			Message: "disk bus has to be either virtio or sata or scsi",
			Values:  []string{"virtio", "sata", "scsi"},
		},
		{
			Name: "windows-cd-bus", Path: cdroms, Valid: cdroms, Rule: "enum",
			Message: "cd bus has to be sata", Values: []string{"sata"},
		},
	}
}

// minCores is Windows 11's extra rule: it refuses to install on one core.
func minCores(n int64) rule {
	return rule{
		Name: "minimal-required-cores", Path: "jsonpath::.spec.domain.cpu.cores",
		Rule: "integer", Message: "This VM requires more cores.", Min: &n,
	}
}

// validationsJSON renders rules as the annotation value, indented as
// upstream's are so a human reading the template can follow them.
func validationsJSON(rules []rule) string {
	out, err := json.MarshalIndent(rules, "", "  ")
	if err != nil {
		// Marshalling plain strings and numbers cannot fail.
		panic(err)
	}
	return string(out) + "\n"
}
