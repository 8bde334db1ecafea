package volumepopulator

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
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

// podAnnotations map the import workflow onto the importer pod's
// annotations: a retried attempt counts as a restart, with the previous
// attempt's failure as the running condition's message.
func podAnnotations(state workflowstate.State) map[string]string {
	switch state.Phase {
	case workflowstate.Succeeded:
		return podState(corev1.PodSucceeded, false, 0, false, "Completed", "Import Complete")
	case workflowstate.Failed:
		return podState(corev1.PodFailed, false, 0, false, "Error", state.Message)
	case workflowstate.Cancelled:
		return podState(corev1.PodFailed, false, 0, false, "Error", "Import cancelled")
	}
	act, ok := state.Activity(cdi.ImportDiskName)
	if !ok {
		return podState(corev1.PodPending, false, 0, false, "Pending", "Import scheduled")
	}
	restarts := max(act.Attempt-1, 0)
	if act.LastFailure != "" && act.Attempt > 1 {
		return podState(corev1.PodRunning, false, restarts, false, "Error", act.LastFailure)
	}
	return podState(corev1.PodRunning, true, restarts, true, "Pod is running", "")
}

// targetAnnotations are what the target shows of its prime's state
// (ann): the importer's annotations, the prime's name and the progress.
func targetAnnotations(prime *corev1.PersistentVolumeClaim, ann map[string]string) map[string]string {
	out := map[string]string{AnnPVCPrimeName: prime.Name}
	for _, k := range copied {
		if v, ok := ann[k]; ok {
			out[k] = v
		}
	}
	switch {
	case ann[AnnPodPhase] == string(corev1.PodSucceeded):
		out[AnnPopulatorProgress] = "100.0%"
	case prime.Annotations[cdi.AnnProgress] != "":
		out[AnnPopulatorProgress] = prime.Annotations[cdi.AnnProgress]
	case prime.Status.Phase == corev1.ClaimBound:
		out[AnnPopulatorProgress] = "N/A"
	}
	return out
}
