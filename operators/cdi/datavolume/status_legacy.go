package datavolume

// Transitional. Runs started before the workflows relayed their disk
// activity's reports into the memo (workflow version "progress-relay" at
// DefaultVersion) never publish an Activity, so their status is read the
// way it was before: the disk activity's pending state from the
// workflow's description, the percentage and the upload server from the
// claim's notes. This file, the pending activities in
// kube/workflowstate.State and cdi.AnnProgress/AnnAttempt can go once no
// such run can still be running: a fill has no deadline, so when
// `temporal workflow list --query "ExecutionStatus='Running'"` shows no
// cdi-import-, cdi-upload- or cdi-clone- run started before the upgrade
// that brought progress-relay, and at the latest with the release after
// that one.

import (
	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// RelaysNoActivity tells a run whose memo cannot show the disk activity:
// one that publishes no Activity while importing. A relaying run's
// importing step always carries one, from its first publish on; a run
// whose memo is not there yet has started nothing to read. The import
// populator asks it too.
func RelaysNoActivity(p cdi.ImportProgress) bool {
	return p.Activity == nil && (p.Step == "" || p.Step == cdi.StepImporting)
}

// legacyRunningState is activityState for a run that does not relay:
// the attempt and last failure from the disk activity's pending state,
// the percentage and upload server from the claim.
func legacyRunningState(dv *cdiv1.DataVolume, pvc *corev1.PersistentVolumeClaim, state workflowstate.State, st *cdiv1.DataVolumeStatus) (cdiv1.DataVolumePhase, cdiv1.DataVolumeCondition) {
	if isUpload(dv) {
		return uploadState(pvc.Annotations[cdi.AnnUploadServer] != "")
	}
	phase, running := scheduledState(dv)
	if act, ok := state.Activity(cdi.ImportDiskName); ok {
		phase, running = legacyAttemptState(act, pvc, st)
	}
	if act, ok := state.Activity(cdi.CloneDiskName); ok {
		_, running = legacyAttemptState(act, pvc, st)
		phase = cdiv1.CloneInProgress
	}
	return phase, running
}

// legacyAttemptState reads the copy's percentage from the claim and the
// disk activity's last failure while it is being retried.
func legacyAttemptState(act workflowstate.PendingActivity, pvc *corev1.PersistentVolumeClaim, st *cdiv1.DataVolumeStatus) (cdiv1.DataVolumePhase, cdiv1.DataVolumeCondition) {
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
