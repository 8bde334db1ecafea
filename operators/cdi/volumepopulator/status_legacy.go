package volumepopulator

// Transitional, as operators/cdi/datavolume/status_legacy.go: an import
// started before its workflow relayed the disk activity's reports into
// the memo is read as before, the attempt and last failure from the
// workflow's pending activity, the percentage from the prime's note. It
// goes with that file.

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// legacyImporter reads a run that does not relay its disk activity.
func legacyImporter(state workflowstate.State, prime *corev1.PersistentVolumeClaim) importer {
	imp := importer{progress: prime.Annotations[cdi.AnnProgress]}
	if act, ok := state.Activity(cdi.ImportDiskName); ok {
		imp.started, imp.attempt, imp.lastFailure = true, act.Attempt, act.LastFailure
	}
	return imp
}
