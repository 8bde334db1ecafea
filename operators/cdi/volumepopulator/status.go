package volumepopulator

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
)

// Annotations CDI's importer keeps on the prime claim and its populator
// copies to the target, with upstream's names. The workflow plays the
// importer pod's part.
const (
	AnnPodPhase       = "cdi.kubevirt.io/storage.pod.phase"
	AnnPodReady       = "cdi.kubevirt.io/storage.pod.ready"
	AnnPodRestarts    = "cdi.kubevirt.io/storage.pod.restarts"
	AnnRunning        = "cdi.kubevirt.io/storage.condition.running"
	AnnRunningMessage = "cdi.kubevirt.io/storage.condition.running.message"
	AnnRunningReason  = "cdi.kubevirt.io/storage.condition.running.reason"
)

// copied are the prime's annotations the target shows, as upstream's
// populator copies them.
var copied = []string{AnnPodPhase, AnnPodReady, AnnPodRestarts, AnnRunning, AnnRunningMessage, AnnRunningReason}

func podState(phase corev1.PodPhase, ready bool, restarts int32, running bool, reason, msg string) map[string]string {
	return map[string]string{
		AnnPodPhase: string(phase), AnnPodReady: strconv.FormatBool(ready),
		AnnPodRestarts: strconv.Itoa(int(restarts)), AnnRunning: strconv.FormatBool(running),
		AnnRunningReason: reason, AnnRunningMessage: msg,
	}
}

// pendingAnnotations describe an import waiting for its prime to bind.
func pendingAnnotations() map[string]string {
	return podState(corev1.PodPending, false, 0, false, "Pending", "")
}

// importer is what the populator shows of the import's disk activity, as
// upstream's populator shows its importer pod: whether an attempt started,
// which, why the one before it failed, and the copy's percentage.
type importer struct {
	started     bool
	attempt     int32
	lastFailure string
	progress    string
}

// importerOf reads the disk activity from the import workflow's memo; a
// run that does not relay it is read as before (legacyImporter).
func importerOf(state workflowstate.State, p cdi.ImportProgress, prime *corev1.PersistentVolumeClaim) importer {
	a := p.Activity
	switch {
	case a == nil && datavolume.RelaysNoActivity(p):
		return legacyImporter(state, prime)
	case a == nil || a.Attempt == 0:
		return importer{}
	}
	return importer{started: true, attempt: a.Attempt, lastFailure: a.LastFailure, progress: string(datavolume.ProgressOf(*a))}
}

// podAnnotations map the import workflow onto the importer pod's
// annotations: a retried attempt counts as a restart, with the previous
// attempt's failure as the running condition's message.
func podAnnotations(state workflowstate.State, imp importer) map[string]string {
	switch state.Phase {
	case workflowstate.Succeeded:
		return podState(corev1.PodSucceeded, false, 0, false, "Completed", "Import Complete")
	case workflowstate.Failed:
		return podState(corev1.PodFailed, false, 0, false, "Error", state.Message)
	case workflowstate.Cancelled:
		return podState(corev1.PodFailed, false, 0, false, "Error", "Import cancelled")
	}
	if !imp.started {
		return podState(corev1.PodPending, false, 0, false, "Pending", "Import scheduled")
	}
	restarts := max(imp.attempt-1, 0)
	if imp.lastFailure != "" && imp.attempt > 1 {
		return podState(corev1.PodRunning, false, restarts, false, "Error", imp.lastFailure)
	}
	return podState(corev1.PodRunning, true, restarts, true, "Pod is running", "")
}

// targetAnnotations are what the target shows of its prime's state
// (ann): the importer's annotations, the prime's name and the copy's
// progress ("" when the import reported none).
func targetAnnotations(prime *corev1.PersistentVolumeClaim, ann map[string]string, progress string) map[string]string {
	out := map[string]string{AnnPVCPrimeName: prime.Name}
	for _, k := range copied {
		if v, ok := ann[k]; ok {
			out[k] = v
		}
	}
	switch {
	case ann[AnnPodPhase] == string(corev1.PodSucceeded):
		out[AnnPopulatorProgress] = "100.0%"
	case progress != "":
		out[AnnPopulatorProgress] = progress
	case prime.Status.Phase == corev1.ClaimBound:
		out[AnnPopulatorProgress] = "N/A"
	}
	return out
}
