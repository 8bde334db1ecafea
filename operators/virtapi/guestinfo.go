package virtapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/activities/libvirt"
)

// GuestInfoReader answers guestosinfo; NodeAgents implements it.
type GuestInfoReader interface {
	// GuestOSInfo returns what the VMI's guest agent reports.
	GuestOSInfo(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachineInstanceGuestAgentInfo, error)
}

// GuestOSInfo asks the VMI's guest agent through its node agent, refusing
// as upstream does when the VMI is not running or has no agent connected.
func (n *NodeAgents) GuestOSInfo(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachineInstanceGuestAgentInfo, error) {
	vmi, err := n.runningVMI(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if !hasCondition(vmi, kubevirtv1.VirtualMachineInstanceAgentConnected) {
		return nil, conflict("VMI does not have guest agent connected")
	}
	resp, err := n.agentRequest(ctx, vmi, http.MethodGet, "guestinfo", http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var gi libvirt.GuestInfo
	if err := json.NewDecoder(resp.Body).Decode(&gi); err != nil {
		return nil, fmt.Errorf("decoding guest info of %s: %w", name, err)
	}
	return agentInfo(gi), nil
}

// agentInfo renders the agent's report in upstream's shape; the time
// zone is "<name>, <offset seconds>" as upstream writes it.
func agentInfo(gi libvirt.GuestInfo) *kubevirtv1.VirtualMachineInstanceGuestAgentInfo {
	return &kubevirtv1.VirtualMachineInstanceGuestAgentInfo{
		Hostname: gi.Hostname,
		OS: kubevirtv1.VirtualMachineInstanceGuestOSInfo{
			Name: gi.OS.Name, KernelRelease: gi.OS.KernelRelease, Version: gi.OS.Version, PrettyName: gi.OS.PrettyName,
			VersionID: gi.OS.VersionID, KernelVersion: gi.OS.KernelVersion, Machine: gi.OS.Machine, ID: gi.OS.ID,
		},
		Timezone: fmt.Sprintf("%s, %d", gi.TimeZone, gi.TimeZoneOffset),
	}
}

func hasCondition(vmi *kubevirtv1.VirtualMachineInstance, typ kubevirtv1.VirtualMachineInstanceConditionType) bool {
	for _, c := range vmi.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func (s *Server) guestOSInfo(w http.ResponseWriter, r *http.Request) {
	reader, ok := s.Nodes.(GuestInfoReader)
	if !ok {
		writeStatus(w, http.StatusNotImplemented, "guestosinfo is not available")
		return
	}
	info, err := reader.GuestOSInfo(r.Context(), r.PathValue("ns"), r.PathValue("name"))
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(info)
}
