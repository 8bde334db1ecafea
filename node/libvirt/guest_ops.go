package libvirt

import (
	"context"

	kubevirtv1 "kubevirt.io/api/core/v1"
	golibvirt "libvirt.org/go/libvirt"
)

// GuestUser is a user logged in to the guest; LoginTime is seconds since
// the epoch.
type GuestUser struct {
	Name      string  `json:"name"`
	Domain    string  `json:"domain,omitempty"`
	LoginTime float64 `json:"loginTime"`
}

// GuestFilesystem is a filesystem mounted in the guest.
type GuestFilesystem struct {
	Name       string   `json:"name"`
	MountPoint string   `json:"mountPoint"`
	Type       string   `json:"type"`
	UsedBytes  int      `json:"usedBytes"`
	TotalBytes int      `json:"totalBytes"`
	Disks      []string `json:"disks,omitempty"`
}

// Reboot restarts the guest from inside: through its agent when one is
// connected, else with the ACPI power button, as upstream's soft reboot.
func (h *conn) Reboot(ctx context.Context, name string) error {
	flags := golibvirt.DOMAIN_REBOOT_ACPI_POWER_BTN
	if ok, _ := h.AgentConnected(ctx, name); ok {
		flags = golibvirt.DOMAIN_REBOOT_GUEST_AGENT
	}
	return h.do(name, "rebooting", func(d *golibvirt.Domain) error { return d.Reboot(flags) })
}

// Reset presses the virtual reset button: the guest restarts at once.
func (h *conn) Reset(_ context.Context, name string) error {
	return h.do(name, "resetting", func(d *golibvirt.Domain) error { return d.Reset(0) })
}

// FSFreeze has the guest agent freeze every guest filesystem.
func (h *conn) FSFreeze(_ context.Context, name string) error {
	return h.do(name, "freezing", func(d *golibvirt.Domain) error { return d.FSFreeze(nil, 0) })
}

// FSThaw has the guest agent thaw the filesystems it froze.
func (h *conn) FSThaw(_ context.Context, name string) error {
	return h.do(name, "thawing", func(d *golibvirt.Domain) error { return d.FSThaw(nil, 0) })
}

func usersOf(in []golibvirt.DomainGuestInfoUser) []GuestUser {
	out := make([]GuestUser, 0, len(in))
	for _, u := range in {
		out = append(out, GuestUser{Name: u.Name, Domain: u.Domain, LoginTime: float64(u.LoginTime) / 1000})
	}
	return out
}

func filesystemsOf(in []golibvirt.DomainGuestInfoFileSystem) []GuestFilesystem {
	out := make([]GuestFilesystem, 0, len(in))
	for _, fs := range in {
		g := GuestFilesystem{Name: fs.Name, MountPoint: fs.MountPoint, Type: fs.FSType, UsedBytes: int(fs.UsedBytes), TotalBytes: int(fs.TotalBytes)}
		for _, d := range fs.Disks {
			g.Disks = append(g.Disks, d.Serial)
		}
		out = append(out, g)
	}
	return out
}

// UserList renders the logged-in users in upstream's shape.
func (gi GuestInfo) UserList() kubevirtv1.VirtualMachineInstanceGuestOSUserList {
	items := make([]kubevirtv1.VirtualMachineInstanceGuestOSUser, 0, len(gi.Users))
	for _, u := range gi.Users {
		items = append(items, kubevirtv1.VirtualMachineInstanceGuestOSUser{UserName: u.Name, Domain: u.Domain, LoginTime: u.LoginTime})
	}
	return kubevirtv1.VirtualMachineInstanceGuestOSUserList{Items: items}
}

// FileSystemList renders the guest's filesystems in upstream's shape.
func (gi GuestInfo) FileSystemList() kubevirtv1.VirtualMachineInstanceFileSystemList {
	items := make([]kubevirtv1.VirtualMachineInstanceFileSystem, 0, len(gi.Filesystems))
	for _, fs := range gi.Filesystems {
		item := kubevirtv1.VirtualMachineInstanceFileSystem{DiskName: fs.Name, MountPoint: fs.MountPoint,
			FileSystemType: fs.Type, UsedBytes: fs.UsedBytes, TotalBytes: fs.TotalBytes}
		for _, serial := range fs.Disks {
			item.Disk = append(item.Disk, kubevirtv1.VirtualMachineInstanceFileSystemDisk{Serial: serial})
		}
		items = append(items, item)
	}
	return kubevirtv1.VirtualMachineInstanceFileSystemList{Items: items}
}
