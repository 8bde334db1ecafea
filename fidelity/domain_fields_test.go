package fidelity

import (
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// domainFields are spec.domain's fields outside devices.
var domainFields = map[string]field{
	"spec.domain.resources.requests": domV(corev1.ResourceList{corev1.ResourceMemory: quantity("256Mi")}, `<memory unit="KiB">262144</memory>`).
		with(func(v *kubevirtv1.VirtualMachineInstance) {
			v.Spec.Domain.Memory = &kubevirtv1.Memory{}
			v.Spec.Domain.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: quantity("128Mi")}
		}),
	"spec.domain.resources.limits":                  pod(corev1.ResourceList{corev1.ResourceCPU: quantity("3")}, `"limits":{"cpu":"3"`),
	"spec.domain.resources.overcommitGuestOverhead": pod(true, `"memory":"128Mi"`),
	"spec.domain.cpu.cores":                         domV(uint32(2), `cores="2"`),
	"spec.domain.cpu.sockets":                       domV(uint32(2), `sockets="2"`),
	"spec.domain.cpu.threads":                       domV(uint32(2), `threads="2"`),
	"spec.domain.cpu.maxSockets":                    domV(uint32(4), `<vcpu placement="static" current="1">4</vcpu>`),
	"spec.domain.cpu.model":                         domV("Skylake-Client", `<model fallback="allow">Skylake-Client</model>`),
	"spec.domain.cpu.features[].name":               domV("pcid", `<feature policy="require" name="pcid">`),
	"spec.domain.cpu.features[].policy": domV("disable", `<feature policy="disable" name="pcid">`).
		with(func(v *kubevirtv1.VirtualMachineInstance) {
			v.Spec.Domain.CPU = &kubevirtv1.CPU{Features: []kubevirtv1.CPUFeature{{Name: "pcid"}}}
		}),
	"spec.domain.cpu.dedicatedCpuPlacement":                     pod(true, `"kubevirt.io/cpumanager":"true"`).with(dedicatedShape),
	"spec.domain.cpu.isolateEmulatorThread":                     domV(true, `<emulatorpin cpuset="6">`).with(dedicatedCPUs),
	"spec.domain.cpu.numa.guestMappingPassthrough":              ref(nil, notYet("NUMA passthrough")).with(dedicatedCPUs),
	"spec.domain.cpu.realtime.mask":                             ref("0", "spec.domain.cpu.numa.guestMappingPassthrough must be defined when spec.domain.cpu.realtime is used").with(dedicatedCPUs),
	"spec.domain.memory.hugepages.pageSize":                     domV("2Mi", `<page size="2048" unit="KiB">`),
	"spec.domain.memory.guest":                                  domV(quantity("256Mi"), `<memory unit="KiB">262144</memory>`),
	"spec.domain.memory.maxGuest":                               ref(quantity("4Gi"), notYet("memory hotplug")),
	"spec.domain.memory.reservedOverhead.addedOverhead":         ref(quantity("100Mi"), "Reserved overhead memlock feature gate is not enabled"),
	"spec.domain.memory.reservedOverhead.memLock":               ref("true", "Reserved overhead memlock feature gate is not enabled"),
	"spec.domain.machine.type":                                  domV("pc-q35-7.2", `machine="pc-q35-7.2"`),
	"spec.domain.firmware.uuid":                                 domV("5d307ca9-b3ef-428c-8861-06e72d69f223", `<uuid>5d307ca9-b3ef-428c-8861-06e72d69f223</uuid>`),
	"spec.domain.firmware.bootloader.bios.useSerial":            dom(`<bios useserial="yes">`),
	"spec.domain.firmware.bootloader.efi.secureBoot":            domV(true, `<loader readonly="yes" secure="yes" type="pflash">/usr/share/OVMF/OVMF_CODE_4M.secboot.fd</loader>`).with(efiWithSMM),
	"spec.domain.firmware.bootloader.efi.persistent":            ref(true, notYet("a persistent EFI variable store")),
	"spec.domain.firmware.serial":                               domV("SN-1", `<entry name="serial">SN-1</entry>`),
	"spec.domain.firmware.kernelBoot.kernelArgs":                domV("console=ttyS0", `<cmdline>console=ttyS0</cmdline>`).with(kernelBoot),
	"spec.domain.firmware.kernelBoot.container.image":           pod("registry.example/kernel:1", `registry.example/kernel:1`).with(kernelBoot),
	"spec.domain.firmware.kernelBoot.container.imagePullSecret": pod("kernel-pull", `"imagePullSecrets":[{"name":"kernel-pull"}]`).with(kernelBoot),
	"spec.domain.firmware.kernelBoot.container.imagePullPolicy": pod("Always", `"pullPolicy":"Always"`).with(kernelBoot),
	"spec.domain.firmware.kernelBoot.container.kernelPath":      by("TestTheTestGuestBootsInAPodFromAContainerDisk"),
	"spec.domain.firmware.kernelBoot.container.initrdPath":      by("TestTheTestGuestBootsInAPodFromAContainerDisk"),
	"spec.domain.firmware.acpi.slicNameRef":                     ref("tables", notYet("ACPI SLIC and MSDM tables")).with(secretVolume),
	"spec.domain.firmware.acpi.msdmNameRef":                     ref("tables", notYet("ACPI SLIC and MSDM tables")).with(secretVolume),
	"spec.domain.clock.utc.offsetSeconds":                       domV(3600, `<clock offset="utc" adjustment="3600">`),
	"spec.domain.clock.timezone":                                domV("Europe/Prague", `<clock offset="timezone" timezone="Europe/Prague">`),
	"spec.domain.clock.timer.hpet.tickPolicy":                   domV("delay", `<timer name="hpet" tickpolicy="delay" present="yes">`),
	"spec.domain.clock.timer.hpet.present":                      domV(false, `<timer name="hpet" present="no">`),
	"spec.domain.clock.timer.kvm.present":                       domV(false, `<timer name="kvmclock" present="no">`),
	"spec.domain.clock.timer.pit.tickPolicy":                    domV("catchup", `<timer name="pit" tickpolicy="catchup" present="yes">`),
	"spec.domain.clock.timer.pit.present":                       domV(false, `<timer name="pit" present="no">`),
	"spec.domain.clock.timer.rtc.tickPolicy":                    domV("catchup", `<timer name="rtc" tickpolicy="catchup" present="yes">`),
	"spec.domain.clock.timer.rtc.present":                       domV(false, `<timer name="rtc" present="no">`),
	"spec.domain.clock.timer.rtc.track":                         domV("guest", `<timer name="rtc" track="guest" present="yes">`),
	"spec.domain.clock.timer.hyperv.present":                    domV(true, `<timer name="hypervclock" present="yes">`),
	"spec.domain.features.acpi.enabled":                         domV(false, `<acpi>`).removes(),
	"spec.domain.features.apic.enabled": domV(false, `<apic>`).removes().with(func(v *kubevirtv1.VirtualMachineInstance) {
		v.Spec.Domain.Features = &kubevirtv1.Features{APIC: &kubevirtv1.FeatureAPIC{}}
	}),
	"spec.domain.features.apic.endOfInterrupt":        domV(true, `<apic eoi="on">`),
	"spec.domain.features.hypervPassthrough.enabled":  domV(true, `<hyperv mode="passthrough">`),
	"spec.domain.features.hyperv.relaxed.enabled":     domV(false, `<relaxed state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.Relaxed = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.vapic.enabled":       domV(false, `<vapic state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.VAPIC = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.spinlocks.enabled":   domV(false, `<spinlocks state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.Spinlocks = &kubevirtv1.FeatureSpinlocks{} })),
	"spec.domain.features.hyperv.spinlocks.spinlocks": domV(uint32(8191), `<spinlocks state="on" retries="8191">`).with(hyperv),
	"spec.domain.features.hyperv.vpindex.enabled":     domV(false, `<vpindex state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.VPIndex = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.runtime.enabled":     domV(false, `<runtime state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.Runtime = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.synic.enabled":       domV(false, `<synic state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.SyNIC = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.synictimer.enabled":  domV(false, `<stimer state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.SyNICTimer = &kubevirtv1.SyNICTimer{} })),
	"spec.domain.features.hyperv.synictimer.direct.enabled": domV(false, `<direct state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) {
		h.SyNICTimer = &kubevirtv1.SyNICTimer{Direct: &kubevirtv1.FeatureState{}}
	})),
	"spec.domain.features.hyperv.reset.enabled":             domV(false, `<reset state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.Reset = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.vendorid.enabled":          {how: atNode, value: true, prep: hyperv, want: "an enabled vendor ID needs its value"},
	"spec.domain.features.hyperv.vendorid.vendorid":         domV("virtflow", `<vendor_id state="on" value="virtflow">`).with(hyperv),
	"spec.domain.features.hyperv.frequencies.enabled":       domV(false, `<frequencies state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.Frequencies = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.reenlightenment.enabled":   domV(false, `<reenlightenment state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.Reenlightenment = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.tlbflush.enabled":          domV(false, `<tlbflush state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.TLBFlush = &kubevirtv1.TLBFlush{} })),
	"spec.domain.features.hyperv.tlbflush.direct.enabled":   {how: atNode, value: true, prep: hyperv, want: "the launcher's libvirt 9.0 has no direct or extended TLB flush"},
	"spec.domain.features.hyperv.tlbflush.extended.enabled": {how: atNode, value: true, prep: hyperv, want: "the launcher's libvirt 9.0 has no direct or extended TLB flush"},
	"spec.domain.features.hyperv.ipi.enabled":               domV(false, `<ipi state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.IPI = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.hyperv.evmcs.enabled":             domV(false, `<evmcs state="off">`).with(hypervWith(func(h *kubevirtv1.FeatureHyperv) { h.EVMCS = &kubevirtv1.FeatureState{} })),
	"spec.domain.features.smm.enabled":                      domV(false, `<smm state="on">`).removes().with(efiWithSMM),
	"spec.domain.features.kvm.hidden":                       domV(true, `<hidden state="on">`),
	"spec.domain.features.pvspinlock.enabled":               domV(false, `<pvspinlock state="off">`),
	"spec.domain.ioThreadsPolicy":                           domV("shared", `<iothreads>1</iothreads>`),
	"spec.domain.ioThreads.supplementalPoolThreadCount": domV(uint32(3), `<iothreads>3</iothreads>`).
		with(func(v *kubevirtv1.VirtualMachineInstance) {
			p := kubevirtv1.IOThreadsPolicySupplementalPool
			v.Spec.Domain.IOThreadsPolicy = &p
		}),
	"spec.domain.chassis.manufacturer":                     domV("Acme", `<entry name="manufacturer">Acme</entry>`),
	"spec.domain.chassis.version":                          domV("7", `<entry name="version">7</entry>`),
	"spec.domain.chassis.serial":                           domV("CH-1", `<entry name="serial">CH-1</entry>`),
	"spec.domain.chassis.asset":                            domV("tag-9", `<entry name="asset">tag-9</entry>`),
	"spec.domain.chassis.sku":                              domV("sku-3", `<entry name="sku">sku-3</entry>`),
	"spec.domain.launchSecurity.sev.policy.encryptedState": ref(true, "WorkloadEncryptionSEV feature gate is not enabled"),
	"spec.domain.launchSecurity.sev.session":               ref(nil, "WorkloadEncryptionSEV feature gate is not enabled"),
	"spec.domain.launchSecurity.sev.dhCert":                ref(nil, "WorkloadEncryptionSEV feature gate is not enabled"),
	"spec.domain.launchSecurity.sev.attestation":           ref(nil, "WorkloadEncryptionSEV feature gate is not enabled"),
	"spec.domain.launchSecurity.snp":                       ref(nil, "WorkloadEncryptionSEV feature gate is not enabled"),
	"spec.domain.launchSecurity.tdx":                       ref(nil, "WorkloadEncryptionTDX feature gate is not enabled"),
	"spec.domain.rebootPolicy":                             ref("Terminate", "RebootPolicy feature gate is not enabled"),
}

// kernelBoot boots the VMI's kernel from a container image.
func kernelBoot(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Firmware = &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{Container: &kubevirtv1.KernelBootContainer{
		Image: "registry.example/guest-kernel:1", KernelPath: "/boot/vmlinuz",
	}}}
}

// secretVolume adds a Secret volume named tables, as ACPI tables come.
func secretVolume(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Volumes = append(v.Spec.Volumes, kubevirtv1.Volume{Name: "tables", VolumeSource: kubevirtv1.VolumeSource{
		Secret: &kubevirtv1.SecretVolumeSource{SecretName: "acpi"},
	}})
	v.Spec.Domain.Devices.Disks = append(v.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "tables"})
}

// hypervWith names one enlightenment, on by default, so setting its
// switch to false shows in the domain as off.
func hypervWith(name func(*kubevirtv1.FeatureHyperv)) func(*kubevirtv1.VirtualMachineInstance) {
	return func(v *kubevirtv1.VirtualMachineInstance) {
		hyperv(v)
		name(v.Spec.Domain.Features.Hyperv)
	}
}
