package virtapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
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
	// The node agent answers in upstream's shape, as virt-handler does.
	info := &kubevirtv1.VirtualMachineInstanceGuestAgentInfo{}
	if err := json.NewDecoder(resp.Body).Decode(info); err != nil {
		return nil, fmt.Errorf("decoding guest info of %s: %w", name, err)
	}
	return info, nil
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
