package domain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/virtflow/virtflow/node/podnet"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

func baseVMI() *kubevirtv1.VirtualMachineInstance {
	guest := resource.MustParse("128Mi")
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "vm1", UID: "6a1c5f4e-0000-4000-8000-000000000001"},
		Spec: kubevirtv1.VirtualMachineInstanceSpec{
			Domain: kubevirtv1.DomainSpec{
				Memory: &kubevirtv1.Memory{Guest: &guest},
				Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{
					{Name: "root"},
					{Name: "cloudinit", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{}}},
				}},
			},
			Volumes: []kubevirtv1.Volume{{Name: "root"}, {Name: "cloudinit"}},
		},
	}
}

func baseInput(vmi *kubevirtv1.VirtualMachineInstance) Input {
	return Input{VMI: vmi, Type: TCG, SerialLog: "/run/vmi/serial.log", Sources: map[string]Source{
		"root":      {Path: "/var/run/disks/root.qcow2", Format: "qcow2"},
		"cloudinit": {Path: "/var/run/disks/cloudinit.iso", CDROM: true},
	}}
}

func TestBuildValidSpecs(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Input)
		check  func(*testing.T, *libvirtxml.Domain)
	}{
		{"defaults", nil, func(t *testing.T, d *libvirtxml.Domain) {
			require.Equal(t, "qemu", d.Type)
			require.Equal(t, "ns1_vm1", d.Name)
			require.Equal(t, "6a1c5f4e-0000-4000-8000-000000000001", d.UUID)
			require.Equal(t, uint(128*1024), d.Memory.Value)
			require.Equal(t, uint(1), d.VCPU.Value)
			require.Equal(t, "q35", d.OS.Type.Machine)
			require.NotNil(t, d.Features.ACPI, "without ACPI a guest poweroff only halts")
			require.Equal(t, "", d.CPU.Mode, "TCG leaves the CPU model to qemu")
			root := d.Devices.Disks[0]
			require.Equal(t, "vda", root.Target.Dev)
			require.Equal(t, "virtio", root.Target.Bus)
			require.Equal(t, "qcow2", root.Driver.Type)
			require.Equal(t, "none", root.Driver.Cache)
			require.Nil(t, root.ReadOnly)
			ci := d.Devices.Disks[1]
			require.Equal(t, "cdrom", ci.Device)
			require.Equal(t, "sata", ci.Target.Bus)
			require.Equal(t, "sda", ci.Target.Dev)
			require.NotNil(t, ci.ReadOnly)
			require.Equal(t, "/run/vmi/serial.log", d.Devices.Serials[0].Log.File)
			require.Equal(t, "virtio-non-transitional", d.Devices.MemBalloon.Model, "upstream attaches a balloon unless told not to")
			require.Equal(t, "on", d.Devices.MemBalloon.FreePageReporting)
			require.Equal(t, "KubeVirt", d.SysInfo[0].SMBIOS.System.Entry[1].Value, "the guest sees upstream's SMBIOS maker")
			require.Nil(t, d.OS.Loader, "BIOS unless EFI is asked for")
		}},
		{"no balloon when told", func(in *Input) { in.VMI.Spec.Domain.Devices.AutoattachMemBalloon = new(bool) }, func(t *testing.T, d *libvirtxml.Domain) {
			require.Equal(t, "none", d.Devices.MemBalloon.Model)
		}},
		{"kvm uses host-model", func(in *Input) { in.Type = KVM }, func(t *testing.T, d *libvirtxml.Domain) {
			require.Equal(t, "kvm", d.Type)
			require.Equal(t, "host-model", d.CPU.Mode)
		}},
		{"topology and custom model", func(in *Input) {
			in.VMI.Spec.Domain.CPU = &kubevirtv1.CPU{Sockets: 2, Cores: 2, Threads: 1, Model: "Skylake-Client"}
		}, func(t *testing.T, d *libvirtxml.Domain) {
			require.Equal(t, uint(4), d.VCPU.Value)
			require.Equal(t, 2, d.CPU.Topology.Sockets)
			require.Equal(t, "custom", d.CPU.Mode)
			require.Equal(t, "Skylake-Client", d.CPU.Model.Value)
		}},
		{"memory from requests", func(in *Input) {
			in.VMI.Spec.Domain.Memory = nil
			in.VMI.Spec.Domain.Resources.Requests = corev1.ResourceList{"memory": resource.MustParse("1Gi")}
		}, func(t *testing.T, d *libvirtxml.Domain) {
			require.Equal(t, uint(1024*1024), d.Memory.Value)
		}},
		{"kernel boot", func(in *Input) {
			in.VMI.Spec.Domain.Firmware = &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{KernelArgs: "console=ttyS0"}}
			in.Kernel, in.Initrd = "/boot/vmlinuz", "/boot/initrd.img"
		}, func(t *testing.T, d *libvirtxml.Domain) {
			require.Equal(t, "/boot/vmlinuz", d.OS.Kernel)
			require.Equal(t, "/boot/initrd.img", d.OS.Initrd)
			require.Equal(t, "console=ttyS0", d.OS.Cmdline)
		}},
		{"buses, boot order, block source", func(in *Input) {
			one := uint(1)
			in.VMI.Spec.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusSCSI}
			in.VMI.Spec.Domain.Devices.Disks[0].BootOrder = &one
			in.VMI.Spec.Domain.Devices.Disks[0].Cache = kubevirtv1.CacheWriteBack
			in.Sources["root"] = Source{Path: "/dev/vg/root", Block: true}
		}, func(t *testing.T, d *libvirtxml.Domain) {
			root := d.Devices.Disks[0]
			require.Equal(t, "sda", root.Target.Dev)
			require.Equal(t, "sdb", d.Devices.Disks[1].Target.Dev)
			require.Equal(t, uint(1), root.Boot.Order)
			require.Equal(t, "writeback", root.Driver.Cache)
			require.Equal(t, "/dev/vg/root", root.Source.Block.Dev)
			require.Equal(t, "raw", root.Driver.Type)
		}},
		{"interface on the tap the node agent made", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default", MacAddress: "02:00:00:00:00:01"}}
			in.Network.Interfaces = []podnet.Interface{{Name: "default", Binding: podnet.Masquerade, Tap: "tap0", MTU: 1450}}
		}, func(t *testing.T, d *libvirtxml.Domain) {
			i := d.Devices.Interfaces[0]
			require.NotNil(t, i.Source.Ethernet)
			require.Nil(t, i.Source.User, "never qemu's user-mode networking")
			require.Equal(t, "tap0", i.Target.Dev)
			require.Equal(t, "no", i.Target.Managed, "libvirt must not touch a tap it cannot own")
			require.Equal(t, uint(1450), i.MTU.Size)
			require.Equal(t, "virtio", i.Model.Type)
			require.Equal(t, "02:00:00:00:00:01", i.MAC.Address)
		}},
		{"passt binding: qemu's stream netdev to the launcher's passt", func(in *Input) {
			two := uint(2)
			in.VMI.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default", MacAddress: "02:00:00:00:00:07", BootOrder: &two}}
			in.Network.Interfaces = []podnet.Interface{{Name: "default", Binding: podnet.Passt, MTU: 1450, Socket: "/run/a,b/passt.sock"}}
		}, func(t *testing.T, d *libvirtxml.Domain) {
			require.Empty(t, d.Devices.Interfaces, "never libvirt's user-mode interface")
			var args []string
			for _, a := range d.QEMUCommandline.Args {
				args = append(args, a.Value)
			}
			require.Equal(t, []string{
				"-netdev", "stream,id=hostua-default,server=off,addr.type=unix,addr.path=/run/a,,b/passt.sock",
				"-device", `{"bootindex":2,"driver":"virtio-net-pci","host_mtu":1450,"id":"ua-default","mac":"02:00:00:00:00:07","netdev":"hostua-default"}`,
			}, args)
		}},
		{"vnc display on a socket", func(in *Input) { in.VNCSocket = "/run/vmi/vnc.sock" }, func(t *testing.T, d *libvirtxml.Domain) {
			require.Len(t, d.Devices.Graphics, 1)
			require.Equal(t, "/run/vmi/vnc.sock", d.Devices.Graphics[0].VNC.Socket)
			require.Empty(t, d.Devices.Graphics[0].VNC.Port, "the display must not listen on TCP")
			require.Equal(t, "vga", d.Devices.Videos[0].Model.Type)
		}},
		{"guest agent channel", func(in *Input) { in.AgentSocket = "/run/vmi/ga.sock" }, func(t *testing.T, d *libvirtxml.Domain) {
			require.Len(t, d.Devices.Channels, 1)
			require.Equal(t, "org.qemu.guest_agent.0", d.Devices.Channels[0].Target.VirtIO.Name)
			require.Equal(t, "/run/vmi/ga.sock", d.Devices.Channels[0].Source.UNIX.Path)
		}},
		{"no graphics when not autoattached", func(in *Input) {
			off := false
			in.VNCSocket = "/run/vmi/vnc.sock"
			in.VMI.Spec.Domain.Devices.AutoattachGraphicsDevice = &off
		}, func(t *testing.T, d *libvirtxml.Domain) {
			require.Empty(t, d.Devices.Graphics)
			require.Empty(t, d.Devices.Videos)
		}},
		{"derived MAC is stable and locally administered", func(in *Input) {
			in.Type = Simulated
			in.VMI.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default"}, {Name: "second"}}
		}, func(t *testing.T, d *libvirtxml.Domain) {
			a, b := d.Devices.Interfaces[0].MAC.Address, d.Devices.Interfaces[1].MAC.Address
			require.Regexp(t, `^02(:[0-9a-f]{2}){5}$`, a)
			require.NotEqual(t, a, b, "each interface has its own MAC")
			again := baseVMI()
			again.UID = "another-run"
			require.Equal(t, a, InterfaceMAC(again, kubevirtv1.Interface{Name: "default"}), "a restarted VM keeps its MAC")
		}},
		{"a NoCloud ISO on a virtio disk", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Disks[1].DiskDevice = kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}}
		}, func(t *testing.T, d *libvirtxml.Domain) {
			ci := d.Devices.Disks[1]
			require.Equal(t, "disk", ci.Device)
			require.Equal(t, "virtio", ci.Target.Bus)
			require.NotNil(t, ci.ReadOnly)
		}},
		{"no serial console", func(in *Input) {
			off := false
			in.VMI.Spec.Domain.Devices.AutoattachSerialConsole = &off
		}, func(t *testing.T, d *libvirtxml.Domain) {
			require.Empty(t, d.Devices.Serials)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := baseInput(baseVMI())
			if c.mutate != nil {
				c.mutate(&in)
			}
			d, err := Build(in)
			require.NoError(t, err)
			c.check(t, d)
			xml, err := BuildXML(in)
			require.NoError(t, err)
			back := &libvirtxml.Domain{}
			require.NoError(t, back.Unmarshal(xml), "the XML libvirt gets parses back")
			require.Equal(t, d.Name, back.Name)
		})
	}
}

func TestBuildRejectsInvalidSpecs(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Input)
		want   string
	}{
		{"no memory", func(in *Input) { in.VMI.Spec.Domain.Memory = nil }, "has no memory"},
		{"tiny memory", func(in *Input) {
			q := resource.MustParse("512Ki")
			in.VMI.Spec.Domain.Memory.Guest = &q
		}, "below 1Mi"},
		{"disk without volume", func(in *Input) { in.VMI.Spec.Volumes = in.VMI.Spec.Volumes[:1] }, "disk cloudinit has no volume of the same name"},
		{"unresolved volume", func(in *Input) { delete(in.Sources, "root") }, "volume root of disk root was not resolved"},
		{"virtio cdrom", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Disks[1].CDRom.Bus = kubevirtv1.DiskBusVirtio
		}, "bus virtio is not supported for cdroms"},
		{"ide bus", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "ide"}
		}, `unsupported disk bus "ide"`},
		{"lun", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Disks[0].LUN = &kubevirtv1.LunTarget{}
		}, "lun disks are not supported"},
		{"kernel not resolved", func(in *Input) {
			in.VMI.Spec.Domain.Firmware = &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{}}
		}, "kernel image was not resolved"},
		{"interface nobody connected", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default"}}
		}, "interface default is not connected to any network on this node"},
		{"passt interface with a PCI address", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default", PciAddress: "0000:81:01.0"}}
			in.Network.Interfaces = []podnet.Interface{{Name: "default", Binding: podnet.Passt, Socket: "/run/passt.sock"}}
		}, "interface default: a PCI address with the passt binding is not supported yet by this virtflow release"},
		{"passt interface without passt", func(in *Input) {
			in.VMI.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default"}}
			in.Network.Interfaces = []podnet.Interface{{Name: "default", Binding: podnet.Passt}}
		}, "interface default: passt is not running for it in the launcher"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := baseInput(baseVMI())
			c.mutate(&in)
			_, err := Build(in)
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), c.want), "%q does not contain %q", err.Error(), c.want)
		})
	}
}

func TestLettersNameDevicesLikeLinux(t *testing.T) {
	require.Equal(t, []string{"a", "z", "aa", "az", "ba"}, []string{letters(0), letters(25), letters(26), letters(51), letters(52)})
}
