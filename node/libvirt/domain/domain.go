// Package domain turns a VirtualMachineInstance into a libvirt domain
// definition. It is pure: where each volume lives on the node is resolved
// beforehand and passed in, so every rule here is testable without libvirt.
package domain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/virtflow/virtflow/node/podnet"
	"k8s.io/apimachinery/pkg/api/resource"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

// Type is the libvirt domain type: hardware-assisted or emulated.
type Type string

// Domain types.
const (
	KVM Type = "kvm"
	// TCG is libvirt's "qemu" type: software emulation, for hosts whose
	// /dev/kvm cannot run ordinary guests.
	TCG Type = "qemu"
	// Simulated runs the domain on libvirt's test driver: no qemu, no
	// guest, just libvirt's state machine. It measures and exercises the
	// control path at scales this host's qemu could not carry.
	Simulated Type = "test"
)

// DefaultMachineType is what VMIs without spec.domain.machine get.
const DefaultMachineType = "q35"

// Source is where a volume's data lives on the node.
type Source struct {
	// Path is a file or block device.
	Path string
	// Format is "raw" or "qcow2".
	Format string
	// Block is true for block devices.
	Block bool
	// ReadOnly forces the disk read-only (container disks, cloud-init).
	ReadOnly bool
	// CDROM marks sources that are ISO images (cloud-init NoCloud).
	CDROM bool
}

// Input is everything Build needs besides the VMI.
type Input struct {
	VMI  *kubevirtv1.VirtualMachineInstance
	Type Type
	// Sources maps volume name to where it lives on the node.
	Sources map[string]Source
	// Kernel and Initrd are the resolved kernel-boot files, if any.
	Kernel, Initrd string
	// SerialLog receives everything the guest writes to its serial console.
	SerialLog string
	// VNCSocket is the unix socket of the guest's VNC display; empty means
	// no graphics device.
	VNCSocket string
	// AgentSocket is the host end of the guest agent's virtio-serial
	// channel; empty means no channel.
	AgentSocket string
	// Emulator is the qemu binary; empty lets libvirt choose.
	Emulator string
	// Network is how the node agent connected the interfaces.
	Network podnet.Plan
	// Firmware is where the node keeps EFI firmware; NVRAMDir is where
	// the VMI's EFI variable store is made from its template.
	Firmware Firmware
	NVRAMDir string
	// CPUSet is the CPUs the kubelet's CPU manager gave the pod, for a
	// VMI with dedicated CPUs.
	CPUSet []int
}

// notYet refuses what the launcher cannot do yet, in the words
// virtflow's other refusals of the kind use.
func notYet(what string) error {
	return errors.New(what + " is not supported yet by this virtflow release")
}

// Name is the libvirt domain name of a VMI: namespace and name, as upstream
// names it, so two namespaces never collide on one node.
func Name(vmi *kubevirtv1.VirtualMachineInstance) string {
	return vmi.Namespace + "_" + vmi.Name
}

// Build returns the domain for in, or an error naming what is invalid.
func Build(in Input) (*libvirtxml.Domain, error) {
	if in.VMI == nil {
		return nil, errors.New("no VirtualMachineInstance given")
	}
	spec := &in.VMI.Spec.Domain
	// The pod got the devices from their plugins, but handing a PCI
	// device to the guest is not built: fail rather than start without.
	if len(spec.Devices.GPUs) > 0 || len(spec.Devices.HostDevices) > 0 {
		return nil, notYet("spec.domain.devices: passing GPUs and host devices through to the guest")
	}
	if err := unsupportedByLibvirt(spec); err != nil {
		return nil, err
	}
	mem, err := guestMemory(in.VMI)
	if err != nil {
		return nil, err
	}
	topo := cpuTopology(spec.CPU)
	vcpu := vcpusOf(spec.CPU, &topo)
	dom := &libvirtxml.Domain{
		Type: string(in.Type), Name: Name(in.VMI), UUID: uuidOf(in.VMI),
		Memory:     &libvirtxml.DomainMemory{Value: uint(mem / 1024), Unit: "KiB"},
		VCPU:       vcpu,
		CPU:        cpuOf(in.Type, spec.CPU, topo),
		OS:         &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Type: "hvm", Arch: "x86_64", Machine: machineType(spec)}},
		Features:   featuresOf(spec),
		Clock:      clockOf(spec.Clock),
		OnPoweroff: "destroy",
		OnReboot:   "restart",
		OnCrash:    "destroy",
		Devices:    &libvirtxml.DomainDeviceList{Emulator: in.Emulator},
		Metadata:   metadataOf(in.VMI),
	}
	if err := addKernelBoot(dom, in); err != nil {
		return nil, err
	}
	if err := addFirmware(dom, in); err != nil {
		return nil, err
	}
	addSysInfo(dom, in)
	if err := addHugepages(dom, spec); err != nil {
		return nil, err
	}
	if err := addPinning(dom, in); err != nil {
		return nil, err
	}
	if err := addDisks(dom, in); err != nil {
		return nil, err
	}
	addIOThreads(dom, spec)
	addConsole(dom, in)
	addGraphics(dom, in)
	addAgentChannel(dom, in)
	if err := addInterfaces(dom, in); err != nil {
		return nil, err
	}
	if err := addDevices(dom, in); err != nil {
		return nil, err
	}
	return dom, nil
}

// BuildXML renders Build's domain as XML.
func BuildXML(in Input) (string, error) {
	dom, err := Build(in)
	if err != nil {
		return "", err
	}
	xml, err := dom.Marshal()
	if err != nil {
		return "", fmt.Errorf("rendering domain XML for %s: %w", dom.Name, err)
	}
	return xml, nil
}

func guestMemory(vmi *kubevirtv1.VirtualMachineInstance) (int64, error) {
	spec := &vmi.Spec.Domain
	var q *resource.Quantity
	if spec.Memory != nil && spec.Memory.Guest != nil {
		q = spec.Memory.Guest
	} else if r, ok := spec.Resources.Requests["memory"]; ok {
		q = &r
	} else if l, ok := spec.Resources.Limits["memory"]; ok {
		q = &l
	}
	if q == nil {
		return 0, fmt.Errorf("VirtualMachineInstance %s/%s has no memory: set spec.domain.memory.guest or spec.domain.resources.requests.memory", vmi.Namespace, vmi.Name)
	}
	v := q.Value()
	if v < 1024*1024 {
		return 0, fmt.Errorf("guest memory %s of %s/%s is below 1Mi", q.String(), vmi.Namespace, vmi.Name)
	}
	return v, nil
}

type topology struct{ sockets, cores, threads uint }

func cpuTopology(cpu *kubevirtv1.CPU) topology {
	t := topology{sockets: 1, cores: 1, threads: 1}
	if cpu != nil {
		if cpu.Sockets > 0 {
			t.sockets = uint(cpu.Sockets)
		}
		if cpu.Cores > 0 {
			t.cores = uint(cpu.Cores)
		}
		if cpu.Threads > 0 {
			t.threads = uint(cpu.Threads)
		}
	}
	return t
}

// cpuOf picks host-model on KVM, as upstream does by default, and leaves
// the emulated CPU to qemu under TCG, where host-model is not available.
func cpuOf(typ Type, cpu *kubevirtv1.CPU, t topology) *libvirtxml.DomainCPU {
	c := &libvirtxml.DomainCPU{Topology: &libvirtxml.DomainCPUTopology{
		Sockets: int(t.sockets), Dies: 1, Cores: int(t.cores), Threads: int(t.threads),
	}}
	model := ""
	if cpu != nil {
		model = cpu.Model
	}
	switch {
	case model == kubevirtv1.CPUModeHostPassthrough:
		c.Mode = "host-passthrough"
	case model == kubevirtv1.CPUModeHostModel || (model == "" && typ == KVM):
		c.Mode = "host-model"
	case model != "":
		c.Mode = "custom"
		c.Model = &libvirtxml.DomainCPUModel{Value: model, Fallback: "allow"}
	}
	if cpu != nil && len(cpu.Features) > 0 {
		// libvirt takes features only with a model; emulation's widest
		// is "maximum", where KVM's default is host-model.
		if c.Mode == "" {
			c.Mode = "maximum"
		}
		for _, f := range cpu.Features {
			policy := f.Policy
			if policy == "" {
				policy = "require"
			}
			c.Features = append(c.Features, libvirtxml.DomainCPUFeature{Name: f.Name, Policy: policy})
		}
	}
	return c
}

func machineType(spec *kubevirtv1.DomainSpec) string {
	if spec.Machine != nil && spec.Machine.Type != "" {
		return spec.Machine.Type
	}
	return DefaultMachineType
}

func uuidOf(vmi *kubevirtv1.VirtualMachineInstance) string {
	if fw := vmi.Spec.Domain.Firmware; fw != nil && fw.UUID != "" {
		return string(fw.UUID)
	}
	return string(vmi.UID)
}

func addKernelBoot(dom *libvirtxml.Domain, in Input) error {
	fw := in.VMI.Spec.Domain.Firmware
	if fw == nil || fw.KernelBoot == nil {
		return nil
	}
	if in.Kernel == "" {
		return fmt.Errorf("spec.domain.firmware.kernelBoot of %s/%s: the kernel image was not resolved", in.VMI.Namespace, in.VMI.Name)
	}
	dom.OS.Kernel, dom.OS.Initrd = in.Kernel, in.Initrd
	dom.OS.Cmdline = fw.KernelBoot.KernelArgs
	return nil
}

func addConsole(dom *libvirtxml.Domain, in Input) {
	if a := in.VMI.Spec.Domain.Devices.AutoattachSerialConsole; a != nil && !*a {
		return
	}
	port := uint(0)
	serial := libvirtxml.DomainSerial{
		Source: &libvirtxml.DomainChardevSource{Pty: &libvirtxml.DomainChardevSourcePty{}},
		Target: &libvirtxml.DomainSerialTarget{Port: &port},
	}
	if in.SerialLog != "" {
		serial.Log = &libvirtxml.DomainChardevLog{File: in.SerialLog, Append: "on"}
	}
	dom.Devices.Serials = []libvirtxml.DomainSerial{serial}
	dom.Devices.Consoles = []libvirtxml.DomainConsole{{
		Source: &libvirtxml.DomainChardevSource{Pty: &libvirtxml.DomainChardevSourcePty{}},
		Target: &libvirtxml.DomainConsoleTarget{Type: "serial", Port: &port},
	}}
}

// addGraphics gives the guest a VGA card and a VNC display on a unix
// socket, as upstream does unless autoattachGraphicsDevice is false; the
// socket is reached only through the launcher, never on a TCP port.
func addGraphics(dom *libvirtxml.Domain, in Input) {
	if a := in.VMI.Spec.Domain.Devices.AutoattachGraphicsDevice; in.VNCSocket == "" || (a != nil && !*a) {
		return
	}
	dom.Devices.Graphics = []libvirtxml.DomainGraphic{{VNC: &libvirtxml.DomainGraphicVNC{Socket: in.VNCSocket}}}
	model := libvirtxml.DomainVideoModel{Type: "vga", VRam: 16384, Heads: 1}
	// Upstream's defaults: VGA, or Bochs for EFI guests, whose firmware
	// has no VGA BIOS to draw with; spec.domain.devices.video names
	// another.
	if isEFI, _ := efi(&in.VMI.Spec.Domain); isEFI {
		model = libvirtxml.DomainVideoModel{Type: "bochs", Heads: 1}
	}
	if v := in.VMI.Spec.Domain.Devices.Video; v != nil && v.Type != "" {
		model.Type = v.Type
	}
	dom.Devices.Videos = []libvirtxml.DomainVideo{{Model: model}}
}

// addAgentChannel gives the guest the virtio-serial port a QEMU guest
// agent opens, as upstream always does; libvirt talks to the agent on it.
func addAgentChannel(dom *libvirtxml.Domain, in Input) {
	if in.AgentSocket == "" {
		return
	}
	dom.Devices.Channels = []libvirtxml.DomainChannel{{
		Source: &libvirtxml.DomainChardevSource{UNIX: &libvirtxml.DomainChardevSourceUNIX{Mode: "bind", Path: in.AgentSocket}},
		Target: &libvirtxml.DomainChannelTarget{VirtIO: &libvirtxml.DomainChannelTargetVirtIO{Name: "org.qemu.guest_agent.0"}},
	}}
}

func metadataOf(vmi *kubevirtv1.VirtualMachineInstance) *libvirtxml.DomainMetadata {
	xml := fmt.Sprintf(`<virtflow:vmi xmlns:virtflow="http://virtflow.io/vmi"><uid>%s</uid><namespace>%s</namespace><name>%s</name></virtflow:vmi>`,
		escape(string(vmi.UID)), escape(vmi.Namespace), escape(vmi.Name))
	return &libvirtxml.DomainMetadata{XML: xml}
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
