package commontemplates

import "fmt"

// linuxEditable is what the console may edit on a Linux template's VM.
const linuxEditable = `/objects[0].spec.template.spec.domain.cpu.sockets
/objects[0].spec.template.spec.domain.cpu.cores
/objects[0].spec.template.spec.domain.cpu.threads
/objects[0].spec.template.spec.domain.memory.guest
/objects[0].spec.template.spec.domain.devices.disks
/objects[0].spec.template.spec.volumes
/objects[0].spec.template.spec.networks
`

// linuxFamily fills in what upstream's Linux meta-templates share.
func linuxFamily(f family) *family {
	f.dataSource = f.os
	f.namePrefix = f.os
	f.nameRandom = 16
	f.storage = "30Gi"
	f.editable = linuxEditable
	f.spec = linuxSpec
	f.terminateWait = 180
	return &f
}

// versions lists the osinfo short IDs prefix<from> to prefix<to>, e.g.
// rhel9.0 to rhel9.7.
func versions(prefix string, from, to int) []string {
	var ids []string
	for i := from; i <= to; i++ {
		ids = append(ids, fmt.Sprintf("%s%d", prefix, i))
	}
	return ids
}

// rhelFamily is the RHEL meta-template for one major release; the osinfo
// data of the release decides the versions, images and minimum memory.
func rhelFamily(major, lastMinor int, tiny string, minRAM int64, image string, containerDisk bool) *family {
	f := family{
		os:          fmt.Sprintf("rhel%d", major),
		osIDs:       versions(fmt.Sprintf("rhel%d.", major), 0, lastMinor),
		osName:      fmt.Sprintf("Red Hat Enterprise Linux %d.0 or higher", major),
		displayName: fmt.Sprintf("Red Hat Enterprise Linux %d VM", major),
		description: fmt.Sprintf("Template for Red Hat Enterprise Linux %d VM or newer. "+
			"A PVC with the RHEL disk image must be available.", major),
		tags: "hidden,kubevirt,virtualmachine,linux,rhel", icon: "rhel",
		images: []string{image}, cloudUser: "cloud-user",
		workloads: []string{Server, Desktop, HighPerformance},
		flavors:   []string{Tiny, Small, Medium, Large},
		defaults:  variant{Server, Small},
		memory:    standardMemory(tiny, "2Gi"),
		rules:     []rule{minMemory(minRAM)},
	}
	if containerDisk {
		f.containerDisks = []string{fmt.Sprintf("registry.redhat.io/rhel%d/rhel-guest-image", major)}
	}
	return linuxFamily(f)
}

// rhel9 boots with UEFI, unlike the older RHEL templates.
func rhel9() *family {
	f := rhelFamily(9, 7, "1.5Gi", 1536*mi,
		"https://access.redhat.com/downloads/content/479/ver=/rhel---9/9.0/x86_64/product-software", true)
	f.efi = true
	return f
}

// rhel8 has container disks and BIOS boot.
func rhel8() *family {
	return rhelFamily(8, 10, "1.5Gi", 1536*mi,
		"https://access.redhat.com/downloads/content/479/ver=/rhel---8/8.6/x86_64/product-software", true)
}

// rhel7 has no container disk and needs less memory.
func rhel7() *family {
	return rhelFamily(7, 9, "1Gi", 1*gi,
		"https://access.redhat.com/downloads/content/69/ver=/rhel---7/7.9/x86_64/product-software", false)
}

// centosStream9 has no high-performance workload upstream.
func centosStream9() *family {
	return linuxFamily(family{
		os: "centos-stream9", osIDs: []string{"centos-stream9"}, osName: "CentOS Stream 9 or higher",
		displayName: "CentOS Stream 9 VM",
		description: "Template for CentOS Stream 9 VM or newer. A PVC with the CentOS Stream disk image must be available.",
		tags:        "hidden,kubevirt,virtualmachine,linux,centosstream", icon: "centos",
		containerDisks: []string{"quay.io/containerdisks/centos-stream:9"},
		images:         []string{"https://cloud.centos.org/centos/9-stream/x86_64/images/CentOS-Stream-GenericCloud-9-latest.x86_64.qcow2"},
		cloudUser:      "centos",
		workloads:      []string{Server, Desktop}, flavors: []string{Tiny, Small, Medium, Large},
		defaults: variant{Server, Small}, memory: standardMemory("1.5Gi", "2Gi"),
		rules: []rule{minMemory(1536 * mi)},
	})
}

// centos6 is shipped deprecated: upstream keeps it for existing users.
func centos6() *family {
	f := linuxFamily(family{
		os: "centos6", osIDs: versions("centos6.", 0, 10), osName: "CentOS 6.0 or higher",
		displayName: "CentOS 6 VM",
		description: "Template for CentOS 6 VM or newer. A PVC with the CentOS disk image must be available.",
		tags:        "hidden,kubevirt,virtualmachine,linux,centos", icon: "centos",
		cloudUser: "centos", deprecated: true,
		workloads: []string{Server}, flavors: []string{Tiny, Small, Medium, Large},
		defaults: variant{Server, Small}, memory: standardMemory("1Gi", "2Gi"),
		rules: []rule{minMemory(512 * mi)},
	})
	f.legacyVirtio = true
	return f
}

// fedora is named after the oldest Fedora osinfo still lists as active,
// and boots with UEFI like RHEL 9.
func fedora() *family {
	f := linuxFamily(family{
		os: "fedora", osIDs: []string{"fedora40", "fedora41", "fedora42"}, osName: "Fedora Linux 40 or higher",
		displayName: "Fedora VM",
		description: "Template for Fedora Linux 40 VM or newer. A PVC with the Fedora disk image must be available.",
		tags:        "hidden,kubevirt,virtualmachine,fedora", icon: "fedora",
		containerDisks: []string{
			"quay.io/containerdisks/fedora:latest", "quay.io/containerdisks/fedora:40",
			"quay.io/containerdisks/fedora:41", "quay.io/containerdisks/fedora:42",
		},
		images: []string{
			"https://download.fedoraproject.org/pub/fedora/linux/releases/40/Cloud/x86_64/images/Fedora-Cloud-Base-Generic.x86_64-40-1.14.qcow2",
			"https://download.fedoraproject.org/pub/fedora/linux/releases/41/Cloud/x86_64/images/Fedora-Cloud-Base-Generic-41-1.4.x86_64.qcow2",
			"https://download.fedoraproject.org/pub/fedora/linux/releases/42/Cloud/x86_64/images/Fedora-Cloud-Base-Generic-42-1.1.x86_64.qcow2",
		},
		cloudUser: "fedora",
		workloads: []string{Desktop, Server, HighPerformance}, flavors: []string{Small, Medium, Large},
		defaults: variant{Server, Small}, memory: standardMemory("", "2Gi"),
		rules: []rule{minMemory(2 * gi)},
	})
	f.efi = true
	return f
}

// opensuse is a server-only family, sized like RHEL 7.
func opensuse() *family {
	return linuxFamily(family{
		os: "opensuse", osIDs: []string{"opensuse15.5", "opensuse15.6"}, osName: "openSUSE Leap 15.5 or higher",
		displayName: "openSUSE Leap 15.5+ VM",
		description: "Template for openSUSE Leap 15.5 VM or newer. A PVC with the openSUSE disk image must be available.",
		tags:        "hidden,kubevirt,virtualmachine,linux,opensuse", icon: "opensuse",
		images: []string{
			"https://download.opensuse.org/repositories/Cloud:/Images:/Leap_15.5/images/openSUSE-Leap-15.5.x86_64-NoCloud.qcow2",
			"https://download.opensuse.org/repositories/Cloud:/Images:/Leap_15.6/images/openSUSE-Leap-15.6.x86_64-NoCloud.qcow2",
		},
		cloudUser: "opensuse",
		workloads: []string{Server}, flavors: []string{Tiny, Small, Medium, Large},
		defaults: variant{Server, Small}, memory: standardMemory("1Gi", "2Gi"),
		rules: []rule{minMemory(1 * gi)},
	})
}

// ubuntu always has a tablet: upstream's Ubuntu variants all set it.
func ubuntu() *family {
	f := linuxFamily(family{
		os: "ubuntu", osIDs: []string{"ubuntu16.04", "ubuntu18.04", "ubuntu20.04", "ubuntu22.04", "ubuntu24.04", "ubuntu25.04"},
		osName:      "Ubuntu 16.04 or higher",
		displayName: "Ubuntu 16.04+ VM",
		description: "Template for Ubuntu 16.04 VM or newer. A PVC with the Ubuntu disk image must be available.",
		tags:        "hidden,kubevirt,virtualmachine,ubuntu", icon: "ubuntu",
		containerDisks: []string{
			"quay.io/containerdisks/ubuntu:18.04", "quay.io/containerdisks/ubuntu:20.04",
			"quay.io/containerdisks/ubuntu:22.04", "quay.io/containerdisks/ubuntu:24.04",
		},
		images: []string{
			"https://cloud-images.ubuntu.com/xenial/current/xenial-server-cloudimg-amd64-disk1.img",
			"https://cloud-images.ubuntu.com/xenial/current/xenial-server-cloudimg-amd64-uefi1.img",
			"https://cloud-images.ubuntu.com/bionic/current/bionic-server-cloudimg-amd64.img",
			"https://cloud-images.ubuntu.com/focal/current/focal-server-cloudimg-amd64.img",
			"https://cloud-images.ubuntu.com/jammy/current/jammy-server-cloudimg-amd64.img",
			"https://cloud-images.ubuntu.com/noble/current/noble-server-cloudimg-amd64.img",
			"https://cloud-images.ubuntu.com/plucky/current/plucky-server-cloudimg-amd64.img",
		},
		cloudUser: "ubuntu",
		workloads: []string{Desktop, Server}, flavors: []string{Small, Medium, Large},
		defaults: variant{Server, Small}, memory: standardMemory("", "3Gi"),
		rules: []rule{minMemory(2 * gi)},
	})
	f.alwaysTablet = true
	return f
}
