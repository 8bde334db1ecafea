package libvirt

import (
	"context"
	"errors"
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"
	golibvirt "libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"
)

// AgentChannel is the virtio-serial port name the QEMU guest agent opens.
const AgentChannel = "org.qemu.guest_agent.0"

// ErrNoAgent is returned when the guest runs no agent or it has not
// connected yet.
var ErrNoAgent = errors.New("guest agent is not connected")

// GuestInfo is what the guest agent reports about the guest.
type GuestInfo struct {
	Hostname string  `json:"hostname,omitempty"`
	OS       GuestOS `json:"os"`
	// TimeZone is the zone's name; TimeZoneOffset its offset from UTC in
	// seconds.
	TimeZone       string            `json:"timeZone,omitempty"`
	TimeZoneOffset int               `json:"timeZoneOffset"`
	Users          []GuestUser       `json:"users,omitempty"`
	Filesystems    []GuestFilesystem `json:"filesystems,omitempty"`
	// FSFreezeStatus is "frozen" while the launcher holds the guest's
	// filesystems frozen, else empty.
	FSFreezeStatus string `json:"fsFreezeStatus,omitempty"`
}

// GuestOS is the guest's os-release and uname.
type GuestOS struct {
	ID            string `json:"id,omitempty"`
	Name          string `json:"name,omitempty"`
	PrettyName    string `json:"prettyName,omitempty"`
	Version       string `json:"version,omitempty"`
	VersionID     string `json:"versionId,omitempty"`
	KernelRelease string `json:"kernelRelease,omitempty"`
	KernelVersion string `json:"kernelVersion,omitempty"`
	Machine       string `json:"machine,omitempty"`
}

// AgentInfo renders the agent's report in upstream's shape; the time zone
// is "<name>, <offset seconds>" as upstream writes it.
func (gi GuestInfo) AgentInfo() *kubevirtv1.VirtualMachineInstanceGuestAgentInfo {
	return &kubevirtv1.VirtualMachineInstanceGuestAgentInfo{
		Hostname: gi.Hostname,
		OS: kubevirtv1.VirtualMachineInstanceGuestOSInfo{
			Name: gi.OS.Name, KernelRelease: gi.OS.KernelRelease, Version: gi.OS.Version, PrettyName: gi.OS.PrettyName,
			VersionID: gi.OS.VersionID, KernelVersion: gi.OS.KernelVersion, Machine: gi.OS.Machine, ID: gi.OS.ID,
		},
		Timezone:       fmt.Sprintf("%s, %d", gi.TimeZone, gi.TimeZoneOffset),
		UserList:       gi.UserList().Items,
		FSInfo:         kubevirtv1.VirtualMachineInstanceFileSystemInfo{Filesystems: gi.FileSystemList().Items},
		FSFreezeStatus: gi.FSFreezeStatus,
	}
}

// AgentConnected reads the agent channel's state from the live domain:
// libvirt marks it connected once the guest opens its end.
func (h *conn) AgentConnected(_ context.Context, name string) (bool, error) {
	d, err := h.lookup(name)
	if err != nil {
		return false, err
	}
	defer d.Free()
	xml, err := d.GetXMLDesc(0)
	if err != nil {
		return false, fmt.Errorf("reading domain %s: %w", name, err)
	}
	dom := &libvirtxml.Domain{}
	if err := dom.Unmarshal(xml); err != nil {
		return false, fmt.Errorf("parsing domain %s: %w", name, err)
	}
	if dom.Devices == nil {
		return false, nil
	}
	for _, ch := range dom.Devices.Channels {
		if t := ch.Target; t != nil && t.VirtIO != nil && t.VirtIO.Name == AgentChannel {
			return t.VirtIO.State == "connected", nil
		}
	}
	return false, nil
}

// GuestInfo asks the agent for the guest's OS, host name, time zone,
// users and filesystems.
func (h *conn) GuestInfo(_ context.Context, name string) (GuestInfo, error) {
	d, err := h.lookup(name)
	if err != nil {
		return GuestInfo{}, err
	}
	defer d.Free()
	gi, err := d.GetGuestInfo(golibvirt.DOMAIN_GUEST_INFO_OS|golibvirt.DOMAIN_GUEST_INFO_HOSTNAME|golibvirt.DOMAIN_GUEST_INFO_TIMEZONE|
		golibvirt.DOMAIN_GUEST_INFO_USERS|golibvirt.DOMAIN_GUEST_INFO_FILESYSTEM, 0)
	var lerr golibvirt.Error
	if errors.As(err, &lerr) && lerr.Code == golibvirt.ERR_AGENT_UNRESPONSIVE {
		return GuestInfo{}, fmt.Errorf("%s: %w (%s)", name, ErrNoAgent, lerr.Message)
	}
	if err != nil {
		return GuestInfo{}, fmt.Errorf("asking the guest agent of %s: %w", name, err)
	}
	out := GuestInfo{Hostname: gi.Hostname, Users: usersOf(gi.Users), Filesystems: filesystemsOf(gi.FileSystems)}
	if os := gi.OS; os != nil {
		out.OS = GuestOS{ID: os.ID, Name: os.Name, PrettyName: os.PrettyName, Version: os.Version, VersionID: os.VersionID,
			KernelRelease: os.KernelRelease, KernelVersion: os.KernelVersion, Machine: os.Machine}
	}
	if tz := gi.TimeZone; tz != nil {
		out.TimeZone, out.TimeZoneOffset = tz.Name, tz.Offset
	}
	return out, nil
}
