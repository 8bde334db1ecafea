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
// conditions: its run's phase, and while it runs what its memo (p) shows
// of the disk activity: the attempt, the last failure while it is being
// retried, the copy's percentage and a listening upload server.
func importStatus(dv *cdiv1.DataVolume, pvc *corev1.PersistentVolumeClaim, state workflowstate.State, p cdi.ImportProgress) cdiv1.DataVolumeStatus {
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
		var running cdiv1.DataVolumeCondition
		switch {
		case p.Activity != nil:
			st.Phase, running = activityState(dv, *p.Activity, &st)
		case RelaysNoActivity(p):
			st.Phase, running = legacyRunningState(dv, pvc, state, &st)
		default:
			st.Phase, running = scheduledState(dv)
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

// scheduledState is a fill whose disk activity has not started.
func scheduledState(dv *cdiv1.DataVolume) (cdiv1.DataVolumePhase, cdiv1.DataVolumeCondition) {
	switch {
	case isUpload(dv):
		return uploadState(false)
	case isClone(dv):
		return cdiv1.CloneScheduled, cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonPending, "Clone scheduled")
	}
	return cdiv1.ImportScheduled, cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonPending, "Import scheduled")
}

// activityState maps what the disk activity reported onto a running
// DataVolume: an upload is ready while its server listens; an import or
// clone shows its percentage and, while a failed attempt is retried (as
// CDI restarts its importer), the restarts and the last failure.
func activityState(dv *cdiv1.DataVolume, a cdi.ActivityProgress, st *cdiv1.DataVolumeStatus) (cdiv1.DataVolumePhase, cdiv1.DataVolumeCondition) {
	if isUpload(dv) {
		return uploadState(a.UploadServer != "")
	}
	if a.Attempt == 0 {
		return scheduledState(dv)
	}
	st.Progress = ProgressOf(a)
	phase := cdiv1.ImportInProgress
	if isClone(dv) {
		phase = cdiv1.CloneInProgress
	}
	if a.Attempt > 1 {
		st.RestartCount = a.Attempt - 1
		if a.LastFailure != "" {
			return phase, cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonError, a.LastFailure)
		}
	}
	return phase, cond(cdiv1.DataVolumeRunning, corev1.ConditionTrue, ReasonRunning, "")
}

// ProgressOf is the copy's percentage as a DataVolume and a populated
// claim show it, "NN.NN%".
func ProgressOf(a cdi.ActivityProgress) cdiv1.DataVolumeProgress {
	return cdiv1.DataVolumeProgress(fmt.Sprintf("%.2f%%", a.Percent))
}

// uploadState is UploadReady while the node's upload server listens,
// UploadScheduled before.
func uploadState(listening bool) (cdiv1.DataVolumePhase, cdiv1.DataVolumeCondition) {
	if !listening {
		return cdiv1.UploadScheduled, cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, ReasonPending, "Upload server starting")
	}
	return cdiv1.UploadReady, cond(cdiv1.DataVolumeRunning, corev1.ConditionTrue, ReasonRunning, "")
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
