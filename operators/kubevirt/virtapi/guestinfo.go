package virtapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// GuestInfo asks the VMI's guest agent through its node agent.
func (n *NodeAgents) GuestInfo(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) (*kubevirtv1.VirtualMachineInstanceGuestAgentInfo, error) {
	resp, err := n.agentRequest(ctx, vmi, http.MethodGet, "guestinfo", nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// The node agent answers in upstream's shape, as virt-handler does.
	info := &kubevirtv1.VirtualMachineInstanceGuestAgentInfo{}
	if err := json.NewDecoder(resp.Body).Decode(info); err != nil {
		return nil, fmt.Errorf("decoding guest info of %s: %w", vmi.Name, err)
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

// guestGet serves guestosinfo, userlist and filesystemlist: what the
// guest agent reports, shaped by render. Like upstream's, these answer
// every failure with a plain-text 500 carrying the message.
func (s *Server) guestGet(render func(*kubevirtv1.VirtualMachineInstanceGuestAgentInfo) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		info, err := s.guestInfo(r.Context(), r.PathValue("ns"), r.PathValue("name"))
		if err != nil {
			msg := err.Error()
			var ae *ActionError
			if errors.As(err, &ae) {
				msg = ae.Message
			}
			http.Error(w, msg, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(render(info))
	}
}

func (s *Server) guestInfo(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachineInstanceGuestAgentInfo, error) {
	vmi, err := s.Nodes.VMI(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if vmi.Status.Phase != kubevirtv1.Running {
		return nil, vmiConflict(name, "VMI is not running")
	}
	if !hasCondition(vmi, kubevirtv1.VirtualMachineInstanceAgentConnected) {
		return nil, vmiConflict(name, "VMI does not have guest agent connected")
	}
	return s.Nodes.GuestInfo(ctx, vmi)
}

func asOSInfo(info *kubevirtv1.VirtualMachineInstanceGuestAgentInfo) any { return info }

func asUserList(info *kubevirtv1.VirtualMachineInstanceGuestAgentInfo) any {
	items := info.UserList
	if items == nil {
		items = []kubevirtv1.VirtualMachineInstanceGuestOSUser{}
	}
	return kubevirtv1.VirtualMachineInstanceGuestOSUserList{Items: items}
}

func asFileSystemList(info *kubevirtv1.VirtualMachineInstanceGuestAgentInfo) any {
	items := info.FSInfo.Filesystems
	if items == nil {
		items = []kubevirtv1.VirtualMachineInstanceFileSystem{}
	}
	return kubevirtv1.VirtualMachineInstanceFileSystemList{Items: items}
}
