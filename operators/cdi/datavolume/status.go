package datavolume

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operators/cdi/cdistatus"
)

// Condition reasons, as CDI reports them.
const (
	ReasonBound     = "Bound"
	ReasonPending   = "Pending"
	ReasonCompleted = "Completed"
	ReasonError     = "Error"
	ReasonRunning   = "Pod is running"
	ReasonCancelled = "Cancelled"
)

func cond(t cdiv1.DataVolumeConditionType, s corev1.ConditionStatus, reason, msg string) cdiv1.DataVolumeCondition {
	return cdiv1.DataVolumeCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

func pendingStatus(dv *cdiv1.DataVolume, phase cdiv1.DataVolumePhase) cdiv1.DataVolumeStatus {
	return cdiv1.DataVolumeStatus{
		ClaimName: dv.Name, Phase: phase, Progress: "N/A",
		Conditions: []cdiv1.DataVolumeCondition{
			cond(cdiv1.DataVolumeBound, corev1.ConditionFalse, ReasonPending, fmt.Sprintf("PVC %s Pending", dv.Name)),
			cond(cdiv1.DataVolumeReady, corev1.ConditionFalse, "", ""),
			cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, "", ""),
		},
	}
}

func failedClaim(dv *cdiv1.DataVolume, err error) cdiv1.DataVolumeStatus {
	st := pendingStatus(dv, cdiv1.Pending)
	st.Conditions[0] = cond(cdiv1.DataVolumeBound, corev1.ConditionFalse, ReasonError, err.Error())
	return st
}

// importStatus maps the import workflow onto phase, progress and
// conditions. A retried attempt's last failure comes from the disk
// activity's pending state; the copy's percentage and the upload server
// from what the activity notes on the claim.
func importStatus(dv *cdiv1.DataVolume, pvc *corev1.PersistentVolumeClaim, state workflowstate.State) cdiv1.DataVolumeStatus {
	st := cdiv1.DataVolumeStatus{ClaimName: dv.Name, Progress: "N/A", RestartCount: dv.Status.RestartCount}
	bound := cond(cdiv1.DataVolumeBound, corev1.ConditionTrue, ReasonBound, fmt.Sprintf("PVC %s Bound", dv.Name))
	switch state.Phase {
	case workflowstate.Succeeded:
		st.Phase, st.Progress = cdiv1.Succeeded, "100.0%"
		st.Conditions = []cdiv1.DataVolumeCondition{bound,
			cond(cdiv1.DataVolumeReady, corev1.ConditionTrue, "", ""),
			cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonCompleted, "Import Complete")}
	case workflowstate.Failed, workflowstate.Cancelled:
		st.Phase, st.Progress = cdiv1.Failed, dv.Status.Progress
		msg := state.Message
		if state.Phase == workflowstate.Cancelled {
			msg = "Import cancelled"
		}
		st.Conditions = []cdiv1.DataVolumeCondition{bound,
			cond(cdiv1.DataVolumeReady, corev1.ConditionFalse, "", ""),
			cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonError, msg)}
	default:
		st.Phase = cdiv1.ImportScheduled
		running := cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonPending, "Import scheduled")
		if isClone(dv) {
			st.Phase, running.Message = cdiv1.CloneScheduled, "Clone scheduled"
		}
		if act, ok := state.Activity(cdi.ImportDiskName); ok {
			st.Phase, running = runningState(act, pvc, &st)
		}
		if act, ok := state.Activity(cdi.CloneDiskName); ok {
			_, running = runningState(act, pvc, &st)
			st.Phase = cdiv1.CloneInProgress
		}
		if isUpload(dv) {
			st.Phase, running = uploadState(pvc)
		}
		st.Conditions = []cdiv1.DataVolumeCondition{bound, cond(cdiv1.DataVolumeReady, corev1.ConditionFalse, "", ""), running}
	}
	if isUpload(dv) && st.Phase == cdiv1.Succeeded {
		st.Conditions[2].Message = "Upload Complete"
	}
	if isClone(dv) && st.Phase == cdiv1.Succeeded {
		st.Conditions[2].Message = "Clone Complete"
	}
	return st
}

// uploadState is UploadReady once the node's upload server has noted its
// address on the claim, UploadScheduled before.
func uploadState(pvc *corev1.PersistentVolumeClaim) (cdiv1.DataVolumePhase, cdiv1.DataVolumeCondition) {
	if pvc.Annotations[cdi.AnnUploadServer] == "" {
		return cdiv1.UploadScheduled, cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonPending, "Upload server starting")
	}
	return cdiv1.UploadReady, cond(cdiv1.DataVolumeRunning, corev1.ConditionTrue, ReasonRunning, "")
}

// runningState reads the copy's percentage from the claim and the disk
// activity's last failure while it is being retried (CDI's restarting
// importer).
func runningState(act workflowstate.PendingActivity, pvc *corev1.PersistentVolumeClaim, st *cdiv1.DataVolumeStatus) (cdiv1.DataVolumePhase, cdiv1.DataVolumeCondition) {
	if p := pvc.Annotations[cdi.AnnProgress]; p != "" {
		st.Progress = cdiv1.DataVolumeProgress(p)
	}
	if act.Attempt > 1 {
		st.RestartCount = act.Attempt - 1
	}
	if act.LastFailure != "" && act.Attempt > 1 {
		return cdiv1.ImportInProgress, cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonError, act.LastFailure)
	}
	return cdiv1.ImportInProgress, cond(cdiv1.DataVolumeRunning, corev1.ConditionTrue, ReasonRunning, "")
}

// statusKind writes DataVolume status through its subresource.
var statusKind = cdistatus.Kind[*cdiv1.DataVolume]{
	Name: "DataVolume", Subresource: true,
	Conditions: func(dv *cdiv1.DataVolume) []cdistatus.Condition {
		out := make([]cdistatus.Condition, len(dv.Status.Conditions))
		for i := range dv.Status.Conditions {
			c := &dv.Status.Conditions[i]
			out[i] = cdistatus.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
				Transition: &c.LastTransitionTime, Heartbeat: &c.LastHeartbeatTime}
		}
		return out
	},
}

// writeStatus patches status once when it changed, keeping each
// condition's transition time, and records an event per phase change.
func (r *Reconciler) writeStatus(ctx context.Context, dv *cdiv1.DataVolume, st cdiv1.DataVolumeStatus) error {
	recordProgress(dv, st.Progress)
	was := dv.Status.Phase
	wrote, err := statusKind.Write(ctx, r.Client, dv, func(dv *cdiv1.DataVolume) { dv.Status = st })
	if wrote {
		r.phaseEvent(dv, was)
	}
	return err
}

// phaseEvent records what a DataVolume, whose status was just written,
// moved to from phase was.
func (r *Reconciler) phaseEvent(dv *cdiv1.DataVolume, was cdiv1.DataVolumePhase) {
	st := dv.Status
	if was == st.Phase {
		return
	}
	switch st.Phase {
	case cdiv1.ImportInProgress:
		r.Recorder.Eventf(dv, corev1.EventTypeNormal, "ImportInProgress", "Import into %s in progress", dv.Name)
	case cdiv1.UploadReady:
		r.Recorder.Eventf(dv, corev1.EventTypeNormal, "UploadReady", "Upload into %s is ready", dv.Name)
	case cdiv1.Succeeded:
		reason, verb := "ImportSucceeded", "imported"
		if isUpload(dv) {
			reason, verb = "UploadSucceeded", "uploaded"
		}
		if isClone(dv) {
			reason, verb = "CloneSucceeded", "cloned"
		}
		r.Recorder.Eventf(dv, corev1.EventTypeNormal, reason, "Successfully %s into PVC %s", verb, dv.Name)
	case cdiv1.Failed:
		r.Recorder.Eventf(dv, corev1.EventTypeWarning, ReasonError, "Import into %s failed: %s", dv.Name, st.Conditions[len(st.Conditions)-1].Message)
	case cdiv1.WaitForFirstConsumer:
		r.Recorder.Eventf(dv, corev1.EventTypeNormal, "WaitForFirstConsumer", "PVC %s waits for its first consumer", dv.Name)
	}
	if st.Phase == cdiv1.ImportScheduled || st.Phase == cdiv1.ImportInProgress || st.Phase == cdiv1.UploadScheduled || st.Phase == cdiv1.CloneScheduled {
		if was == cdiv1.Pending || was == cdiv1.WaitForFirstConsumer || was == "" {
			r.Recorder.Eventf(dv, corev1.EventTypeNormal, ReasonBound, "PVC %s Bound", dv.Name)
		}
	}
}
