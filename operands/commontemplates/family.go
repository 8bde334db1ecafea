package commontemplates

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Workloads, as the labels and template names spell them.
const (
	// Server is a headless guest.
	Server = "server"
	// Desktop is a guest used through its graphical console: it gets a
	// tablet so the pointer follows the console's.
	Desktop = "desktop"
	// HighPerformance pins CPUs and assumes virtio drivers.
	HighPerformance = "highperformance"
)

// Flavors, the sizes of a template's VM. The memory given is upstream's;
// the test guest scales it down.
const (
	// Tiny is one vCPU and the least memory the OS installs in, 1 to
	// 1.5Gi.
	Tiny = "tiny"
	// Small is one vCPU and 2Gi (Ubuntu: 3Gi).
	Small = "small"
	// Medium is one vCPU and 4Gi.
	Medium = "medium"
	// Large is two vCPUs and 8Gi.
	Large = "large"
)

// family is one meta-template of upstream: one guest OS whose templates
// differ only by workload and flavor.
type family struct {
	os             string   // name prefix of its templates, vm.kubevirt.io/os
	osIDs          []string // osinfo short IDs, one os label each
	osName         string   // value of every name.os annotation
	displayName    string
	description    string
	tags           string
	icon           string
	dataSource     string // default of DATA_SOURCE_NAME
	namePrefix     string // prefix of the generated VM name
	nameRandom     int    // random characters after namePrefix
	containerDisks []string
	images         []string
	cloudUser      string // cloud-init user; none for guests without cloud-init
	deprecated     bool
	workloads      []string
	flavors        []string
	defaults       variant // the default OS variant
	memory         map[string]string
	storage        string // root disk size
	editable       string
	defaultNetwork bool
	rules          []rule
	spec           func(f *family, v variant, o Options) kubevirtv1.VirtualMachineInstanceSpec
	// trait switches of the spec functions, set per family as upstream's
	// meta-templates differ
	efi           bool   // Linux: SMM and UEFI
	legacyVirtio  bool   // Linux: transitional virtio devices, boot order
	alwaysTablet  bool   // Linux: tablet on every workload
	cores         uint32 // Windows: cores per socket
	tpm           bool   // Windows: persistent TPM and EFI variables
	terminateWait int64  // seconds a stopping guest gets to shut down
}

// variant is one workload and flavor of a family.
type variant struct {
	workload string
	flavor   string
}

// name is the template name upstream gives the variant.
func (f *family) name(v variant) string {
	return f.os + "-" + v.workload + "-" + v.flavor
}

// variants lists the family's workloads by flavors, the full cross product
// upstream's playbook enumerates.
func (f *family) variants() []variant {
	var vs []variant
	for _, w := range f.workloads {
		for _, fl := range f.flavors {
			vs = append(vs, variant{workload: w, flavor: fl})
		}
	}
	return vs
}

// sockets is one CPU socket per VM, two for large flavors, as upstream
// sizes every OS.
func sockets(flavor string) uint32 {
	if flavor == Large {
		return 2
	}
	return 1
}

// standardMemory is the memory of the medium and large flavors of every
// upstream family; small and tiny vary per OS.
func standardMemory(tiny, small string) map[string]string {
	return map[string]string{Tiny: tiny, Small: small, Medium: "4Gi", Large: "8Gi"}
}

const (
	gi = int64(1) << 30
	mi = int64(1) << 20
)
