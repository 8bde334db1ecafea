package virtapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// NodeCommander reaches the node agent running a VMI; NodeAgents
// implements it.
type NodeCommander interface {
	// VMI reads a VMI, failing with upstream's 404 when it is missing.
	VMI(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachineInstance, error)
	// Command sends verb (and body, when not nil) to the VMI's launcher.
	Command(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, verb string, body []byte) error
	// GuestInfo is what the VMI's guest agent reports.
	GuestInfo(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) (*kubevirtv1.VirtualMachineInstanceGuestAgentInfo, error)
}

// vmiCheck refuses a command upstream would refuse; skip says the request
// is a dry run that ends after the checks.
type vmiCheck func(vmi *kubevirtv1.VirtualMachineInstance, body []byte) (skip bool, err error)

// vmiCommand serves a PUT subresource carried out on the VMI's node.
func (s *Server) vmiCommand(verb string, check vmiCheck) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err != nil {
			writeError(w, badRequest("reading the request body: %v", err))
			return
		}
		vmi, err := s.Nodes.VMI(r.Context(), r.PathValue("ns"), r.PathValue("name"))
		if err != nil {
			writeError(w, err)
			return
		}
		skip, err := check(vmi, body)
		if err == nil && !skip {
			if len(body) == 0 {
				body = nil
			}
			err = s.Nodes.Command(r.Context(), vmi, verb, body)
		}
		if err != nil {
			writeError(w, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

func paused(vmi *kubevirtv1.VirtualMachineInstance) bool {
	return hasCondition(vmi, kubevirtv1.VirtualMachineInstancePaused)
}

// dryRun decodes upstream's pause/unpause options.
func dryRun(body []byte) (bool, error) {
	if len(body) == 0 {
		return false, nil
	}
	var opts struct {
		DryRun []string `json:"dryRun,omitempty"`
	}
	if err := json.Unmarshal(body, &opts); err != nil {
		return false, badRequest("Can not unmarshal Request body to struct, error: %v", err)
	}
	return len(opts.DryRun) > 0 && opts.DryRun[0] == metav1.DryRunAll, nil
}

func checkPause(vmi *kubevirtv1.VirtualMachineInstance, body []byte) (bool, error) {
	dry, err := dryRun(body)
	switch {
	case err != nil:
		return false, err
	case vmi.Status.Phase != kubevirtv1.Running:
		return false, vmiConflict(vmi.Name, "VM is not running")
	case vmi.Spec.LivenessProbe != nil && vmi.Spec.LivenessProbe.GuestAgentPing == nil:
		return false, &ActionError{Code: http.StatusForbidden, Message: "virtualmachineinstance.kubevirt.io \"" + vmi.Name +
			"\" is forbidden: Pausing VMIs with a non-GuestAgentPing LivenessProbe is not supported"}
	case paused(vmi):
		return false, vmiConflict(vmi.Name, "VMI is already paused")
	}
	return dry, nil
}

func checkUnpause(vmi *kubevirtv1.VirtualMachineInstance, body []byte) (bool, error) {
	dry, err := dryRun(body)
	switch {
	case err != nil:
		return false, err
	case vmi.Status.Phase != kubevirtv1.Running:
		return false, vmiConflict(vmi.Name, "VMI is not running")
	case !paused(vmi):
		return false, vmiConflict(vmi.Name, "VMI is not paused")
	}
	return dry, nil
}

func checkSoftReboot(vmi *kubevirtv1.VirtualMachineInstance, _ []byte) (bool, error) {
	acpiOff := false
	if f := vmi.Spec.Domain.Features; f != nil && f.ACPI.Enabled != nil && !*f.ACPI.Enabled {
		acpiOff = true
	}
	switch {
	case vmi.Status.Phase != kubevirtv1.Running:
		return false, vmiConflict(vmi.Name, "VM is not running")
	case paused(vmi):
		return false, vmiConflict(vmi.Name, "VMI is paused")
	case !hasCondition(vmi, kubevirtv1.VirtualMachineInstanceAgentConnected) && acpiOff:
		return false, vmiConflict(vmi.Name, "VMI neither have the agent connected nor the ACPI feature enabled")
	}
	return false, nil
}

func checkReset(vmi *kubevirtv1.VirtualMachineInstance, _ []byte) (bool, error) {
	if p := vmi.Status.Phase; p != kubevirtv1.Running && p != kubevirtv1.Scheduled {
		return false, badRequest("Failed to reset non-running VMI with phase %s: Unable to connect to VirtualMachineInstance because phase is %s instead of Running or Scheduled", p, p)
	}
	return false, nil
}

func checkFreeze(vmi *kubevirtv1.VirtualMachineInstance, body []byte) (bool, error) {
	if vmi.Status.Phase != kubevirtv1.Running {
		return false, vmiConflict(vmi.Name, "VM is not running")
	}
	var opts kubevirtv1.FreezeUnfreezeTimeout
	if len(body) == 0 || json.Unmarshal(body, &opts) != nil || opts.UnfreezeTimeout == nil {
		return false, internal("unexpected return code 400 (400 Bad Request), message: Unfreeze timeout in freeze request is not set")
	}
	return false, nil
}

func checkUnfreeze(vmi *kubevirtv1.VirtualMachineInstance, _ []byte) (bool, error) {
	if vmi.Status.Phase != kubevirtv1.Running {
		return false, vmiConflict(vmi.Name, "VMI is not running")
	}
	return false, nil
}
