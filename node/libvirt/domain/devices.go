package domain

import (
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

// memBalloonStatsPeriod is upstream's default statistics period, seconds.
const memBalloonStatsPeriod = 10

// virtioModel is the model of virtio devices that have no bus to name
// one: transitional where the spec asks for guests older than virtio 1.0.
func virtioModel(spec *kubevirtv1.DomainSpec) string {
	if t := spec.Devices.UseVirtioTransitional; t != nil && *t {
		return "virtio-transitional"
	}
	return "virtio-non-transitional"
}

// addDevices adds the devices the spec names besides disks, interfaces
// and consoles: RNG, watchdog, inputs, sound, panic notifiers, TPM and
// the memory balloon, as upstream's converter maps each.
func addDevices(dom *libvirtxml.Domain, in Input) error {
	spec := &in.VMI.Spec.Domain
	d := &spec.Devices
	if d.Rng != nil {
		dom.Devices.RNGs = []libvirtxml.DomainRNG{{Model: virtioModel(spec), Backend: &libvirtxml.DomainRNGBackend{
			Random: &libvirtxml.DomainRNGBackendRandom{Device: "/dev/urandom"},
		}}}
	}
	if err := addWatchdog(dom, d.Watchdog); err != nil {
		return err
	}
	if err := addInputs(dom, d); err != nil {
		return err
	}
	if s := d.Sound; s != nil {
		model := s.Model
		if model == "" {
			model = "ich9"
		}
		dom.Devices.Sounds = []libvirtxml.DomainSound{{Model: model, Alias: userAlias(s.Name)}}
	}
	for _, p := range d.PanicDevices {
		panicDev := libvirtxml.DomainPanic{}
		if p.Model != nil {
			panicDev.Model = string(*p.Model)
		}
		dom.Devices.Panics = append(dom.Devices.Panics, panicDev)
	}
	if t := d.TPM; t != nil && (t.Enabled == nil || *t.Enabled) {
		dom.Devices.TPMs = []libvirtxml.DomainTPM{{Model: "tpm-tis", Backend: &libvirtxml.DomainTPMBackend{
			Emulator: &libvirtxml.DomainTPMBackendEmulator{Version: "2.0"},
		}}}
	}
	dom.Devices.MemBalloon = memBalloonOf(spec)
	return nil
}

// userAlias names a device after the spec, with libvirt's user prefix.
func userAlias(name string) *libvirtxml.DomainAlias {
	if name == "" {
		return nil
	}
	return &libvirtxml.DomainAlias{Name: "ua-" + name}
}

func addWatchdog(dom *libvirtxml.Domain, w *kubevirtv1.Watchdog) error {
	if w == nil {
		return nil
	}
	if w.I6300ESB == nil {
		return fmt.Errorf("watchdog %s can't be mapped, no watchdog type specified", w.Name)
	}
	dom.Devices.Watchdogs = []libvirtxml.DomainWatchdog{{Model: "i6300esb", Action: string(w.I6300ESB.Action), Alias: userAlias(w.Name)}}
	return nil
}

// addInputs maps the spec's tablets, with a USB tablet named default-0
// when autoattachInputDevice asks for one and the spec names none, as
// upstream's VM controller adds it.
func addInputs(dom *libvirtxml.Domain, d *kubevirtv1.Devices) error {
	inputs := d.Inputs
	if a := d.AutoattachInputDevice; a != nil && *a && len(inputs) == 0 {
		inputs = []kubevirtv1.Input{{Name: "default-0"}}
	}
	for _, i := range inputs {
		bus := i.Bus
		switch bus {
		case "":
			bus = kubevirtv1.InputBusUSB
		case kubevirtv1.InputBusUSB, kubevirtv1.InputBusVirtio:
		default:
			return fmt.Errorf("input contains unsupported bus %s", i.Bus)
		}
		if i.Type != "" && i.Type != kubevirtv1.InputTypeTablet {
			return fmt.Errorf("input contains unsupported type %s", i.Type)
		}
		dev := libvirtxml.DomainInput{Type: string(kubevirtv1.InputTypeTablet), Bus: string(bus), Alias: userAlias(i.Name)}
		if bus == kubevirtv1.InputBusVirtio {
			dev.Model = "virtio"
		}
		dom.Devices.Inputs = append(dom.Devices.Inputs, dev)
	}
	return nil
}

// memBalloonOf attaches upstream's balloon, with statistics and free page
// reporting, unless autoattachMemBalloon is false. Dedicated CPUs and
// huge pages turn free page reporting off, as upstream.
func memBalloonOf(spec *kubevirtv1.DomainSpec) *libvirtxml.DomainMemBalloon {
	if a := spec.Devices.AutoattachMemBalloon; a != nil && !*a {
		return &libvirtxml.DomainMemBalloon{Model: "none"}
	}
	reporting := "on"
	if (spec.CPU != nil && spec.CPU.DedicatedCPUPlacement) || (spec.Memory != nil && spec.Memory.Hugepages != nil) {
		reporting = "off"
	}
	return &libvirtxml.DomainMemBalloon{Model: virtioModel(spec), FreePageReporting: reporting,
		Stats: &libvirtxml.DomainMemBalloonStats{Period: memBalloonStatsPeriod}}
}
