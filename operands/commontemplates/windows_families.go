package commontemplates

// windowsEditable is what the console may edit on a Windows template's VM:
// Windows licensing counts sockets, so only cores are offered.
const windowsEditable = `/objects[0].spec.template.spec.domain.cpu.cores
/objects[0].spec.template.spec.domain.memory.guest
/objects[0].spec.template.spec.domain.devices.disks
/objects[0].spec.template.spec.volumes
/objects[0].spec.template.spec.networks
`

// windowsRelease is what differs between upstream's Windows
// meta-templates.
type windowsRelease struct {
	os          string // template name prefix, e.g. windows2k19
	osID        string // osinfo short ID, e.g. win2k19
	osName      string
	description string // upstream's wording, which is not uniform
	namePrefix  string // VM name prefix, e.g. windows2019
	workload    string // desktop for client releases, server for servers
	minRAM      int64
	storage     string
	cores       uint32
	tpm         bool // persistent TPM and EFI variables, for BitLocker and Windows 11
}

// windowsFamily fills in what upstream's Windows meta-templates share:
// medium and large flavors, a high-performance workload, no cloud-init.
func windowsFamily(r windowsRelease) *family {
	rules := append([]rule{minMemory(r.minRAM)}, windowsBusRules()...)
	if r.cores > 1 {
		rules = append(rules, minCores(int64(r.cores)))
	}
	return &family{
		os: r.os, osIDs: []string{r.osID}, osName: r.osName,
		displayName: r.osName + " VM",
		description: r.description + " A PVC with the Windows disk image must be available.",
		tags:        "hidden,kubevirt,virtualmachine,windows", icon: "windows",
		dataSource: r.osID, namePrefix: r.namePrefix, nameRandom: 6,
		workloads: []string{r.workload, HighPerformance}, flavors: []string{Medium, Large},
		defaults: variant{r.workload, Medium}, memory: standardMemory("", ""),
		storage: r.storage, editable: windowsEditable, defaultNetwork: true,
		rules: rules, spec: windowsSpec, cores: r.cores, tpm: r.tpm, terminateWait: 3600,
	}
}

// windowsFamilies are upstream's Windows releases, client and server.
func windowsFamilies() []*family {
	return []*family{
		windowsFamily(windowsRelease{
			os: "windows10", osID: "win10", osName: "Microsoft Windows 10",
			description: "Template for Microsoft Windows 10 VM.", namePrefix: "windows10",
			workload: Desktop, minRAM: 2 * gi, storage: "60Gi", cores: 1,
		}),
		windowsFamily(windowsRelease{
			os: "windows11", osID: "win11", osName: "Microsoft Windows 11",
			description: "Template for Microsoft Windows 11 VM.", namePrefix: "windows11",
			workload: Desktop, minRAM: 4 * gi, storage: "64Gi", cores: 2, tpm: true,
		}),
		windowsFamily(windowsRelease{
			os: "windows2k16", osID: "win2k16", osName: "Microsoft Windows Server 2016",
			description: "Template for Microsoft Windows Server 2016 VM.", namePrefix: "windows2016",
			workload: Server, minRAM: 512 * mi, storage: "60Gi", cores: 1,
		}),
		windowsFamily(windowsRelease{
			os: "windows2k19", osID: "win2k19", osName: "Microsoft Windows Server 2019",
			description: "Template for Microsoft Windows Server 2019 VM.", namePrefix: "windows2019",
			workload: Server, minRAM: 512 * mi, storage: "60Gi", cores: 1,
		}),
		windowsFamily(windowsRelease{
			os: "windows2k22", osID: "win2k22", osName: "Microsoft Windows Server 2022",
			description: "Template for Microsoft Windows Server 2022 VM.", namePrefix: "windows2022",
			workload: Server, minRAM: 512 * mi, storage: "60Gi", cores: 1, tpm: true,
		}),
		windowsFamily(windowsRelease{
			os: "windows2k25", osID: "win2k25", osName: "Microsoft Windows Server 2025",
			description: "Template for Microsoft Windows 2025 VM.", namePrefix: "windows2025",
			workload: Server, minRAM: 512 * mi, storage: "64Gi", cores: 1, tpm: true,
		}),
	}
}
