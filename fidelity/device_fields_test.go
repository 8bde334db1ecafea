package fidelity

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// deviceFields are spec.domain.devices' fields besides disks and
// interfaces.
var deviceFields = map[string]field{
	"spec.domain.devices.useVirtioTransitional":    domV(true, `<memballoon model="virtio-transitional"`),
	"spec.domain.devices.disableHotplug":           by("TestSubresourcesNotBuiltYetSaySo"),
	"spec.domain.devices.autoattachPodInterface":   pod(false, `"devices.kubevirt.io/tun"`).removes().with(noInterfaces),
	"spec.domain.devices.autoattachGraphicsDevice": domV(false, `<graphics type="vnc"`).removes(),
	"spec.domain.devices.autoattachSerialConsole":  domV(false, `<serial type="pty">`).removes(),
	"spec.domain.devices.logSerialConsole":         pod(false, `"guest-console-log"`).removes(),
	"spec.domain.devices.autoattachMemBalloon":     domV(false, `<memballoon model="none">`),
	"spec.domain.devices.autoattachInputDevice":    domV(true, `<input type="tablet" bus="usb">`),
	"spec.domain.devices.autoattachVSOCK":          ref(true, "VSOCK feature gate is not enabled"),
	"spec.domain.devices.blockMultiQueue":          domV(true, `queues="1"`),
	"spec.domain.devices.networkInterfaceMultiqueue": domV(true, `<driver queues="2">`).
		with(func(v *kubevirtv1.VirtualMachineInstance) { v.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 2} }),
	"spec.domain.devices.watchdog.name":                                  domV("wd", `<alias name="ua-wd">`).with(unnamedWatchdog),
	"spec.domain.devices.watchdog.i6300esb.action":                       domV("reset", `<watchdog model="i6300esb" action="reset">`).with(watchdog),
	"spec.domain.devices.watchdog.diag288.action":                        ref("reset", "amd64 only supports I6300ESB watchdog device"),
	"spec.domain.devices.inputs[].bus":                                   domV("virtio", `<input type="tablet" bus="virtio" model="virtio">`).with(tablet),
	"spec.domain.devices.inputs[].type":                                  ref("keyboard", "Input device can have only tablet type."),
	"spec.domain.devices.inputs[].name":                                  domV("pointer", `<alias name="ua-pointer">`).with(tablet),
	"spec.domain.devices.gpus[].name":                                    field{how: atNode, value: "gpu1", want: "passing GPUs and host devices through to the guest is not supported yet by this virtflow release"},
	"spec.domain.devices.gpus[].deviceName":                              pod("example.com/vgpu", `"example.com/vgpu":"1"`),
	"spec.domain.devices.gpus[].claimName":                               ref("claim", "contains DRA enabled GPUs but feature gate is not enabled"),
	"spec.domain.devices.gpus[].requestName":                             ref("request", "contains DRA enabled GPUs but feature gate is not enabled"),
	"spec.domain.devices.gpus[].tag":                                     ref("gpu-tag", notYet("device role tagging")).with(gpu),
	"spec.domain.devices.gpus[].virtualGPUOptions.display.enabled":       field{how: atNode, value: true, want: "passing GPUs and host devices through to the guest is not supported yet by this virtflow release"},
	"spec.domain.devices.gpus[].virtualGPUOptions.display.ramFB.enabled": field{how: atNode, value: true, want: "passing GPUs and host devices through to the guest is not supported yet by this virtflow release"},
	"spec.domain.devices.hostDevices[].name":                             field{how: atNode, value: "dev1", want: "passing GPUs and host devices through to the guest is not supported yet by this virtflow release"},
	"spec.domain.devices.hostDevices[].deviceName":                       pod("example.com/ssd", `"example.com/ssd":"1"`),
	"spec.domain.devices.hostDevices[].claimName":                        ref("claim", "contains DRA enabled HostDevices but feature gate is not enabled"),
	"spec.domain.devices.hostDevices[].requestName":                      ref("request", "contains DRA enabled HostDevices but feature gate is not enabled"),
	"spec.domain.devices.hostDevices[].tag":                              ref("dev-tag", notYet("device role tagging")).with(hostDevice),
	"spec.domain.devices.panicDevices[].model":                           ref("pvpanic", "Panic Devices feature gate is not enabled"),
	"spec.domain.devices.filesystems[].name":                             ref("fs", notYet("virtiofs")),
	"spec.domain.devices.filesystems[].virtiofs":                         ref(nil, notYet("virtiofs")),
	"spec.domain.devices.sound.name":                                     domV("audio", `<alias name="ua-audio">`).with(unnamedSound),
	"spec.domain.devices.sound.model":                                    domV("ac97", `<sound model="ac97">`).with(sound),
	"spec.domain.devices.tpm.enabled":                                    domV(false, `<tpm model="tpm-tis">`).removes().with(tpm),
	"spec.domain.devices.tpm.persistent":                                 ref(true, notYet("persistent TPM state")),
	"spec.domain.devices.video.type":                                     domV("virtio", `<model type="virtio" heads="1" vram="16384">`),
	"spec.domain.devices.rng":                                            dom(`<rng model="virtio-non-transitional">`),
	"spec.domain.devices.downwardMetrics":                                ref(nil, "DownwardMetrics feature gate is not enabled"),
	"spec.domain.devices.clientPassthrough":                              ref(nil, notYet("USB redirection")),
}

func noInterfaces(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Interfaces, v.Spec.Networks = nil, nil
}

func watchdog(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Watchdog = &kubevirtv1.Watchdog{Name: "wd", WatchdogDevice: kubevirtv1.WatchdogDevice{I6300ESB: &kubevirtv1.I6300ESBWatchdog{}}}
}

func unnamedWatchdog(v *kubevirtv1.VirtualMachineInstance) {
	watchdog(v)
	v.Spec.Domain.Devices.Watchdog.Name = ""
}

func tablet(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Inputs = []kubevirtv1.Input{{Name: "tablet0", Type: kubevirtv1.InputTypeTablet}}
}

func gpu(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.GPUs = []kubevirtv1.GPU{{Name: "gpu0", DeviceName: "example.com/gpu"}}
}

func hostDevice(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.HostDevices = []kubevirtv1.HostDevice{{Name: "dev0", DeviceName: "example.com/nic"}}
}

func unnamedSound(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Sound = &kubevirtv1.SoundDevice{}
}

func tpm(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.TPM = &kubevirtv1.TPMDevice{}
}

func sound(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Sound = &kubevirtv1.SoundDevice{Name: "audio"}
}
