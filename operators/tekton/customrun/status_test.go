package customrun

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// A task being retried shows its attempt and the last one's failure, as
// the workflow's memo carries them.
func TestARetriedTaskShowsTheLastFailureFromTheMemo(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "wait-for-vmi-status", nil))
	h.reconcile()
	h.tc.progress[wfID] = ssp.Progress{Step: "wait-for-vmi-status", Message: "Running task wait-for-vmi-status",
		Activity: &ssp.ActivityProgress{Name: "wait-for-vmi-status", Attempt: 2, LastFailure: "etcd is restarting"}}
	h.reconcile()
	require.Equal(t, "Running task wait-for-vmi-status (attempt 2; the last one failed: etcd is restarting)", h.condition().Message)
}

// A run started before its workflow relayed the task's attempts is read as
// before, from the pending activities; a relaying run never is.
// Transitional; see status_legacy.go.
func TestAnOldRunsRetriesAreReadFromItsPendingActivity(t *testing.T) {
	retrying := workflowstate.State{Phase: workflowstate.Running,
		Activities: []workflowstate.PendingActivity{{Type: ssp.RunTaskStepName, Attempt: 3, LastFailure: "connection refused"}}}
	old := ssp.Progress{Step: "cleanup-vm", Message: "Running task cleanup-vm"}
	require.Equal(t, "Running task cleanup-vm (attempt 3; the last one failed: connection refused)", progressMessage(old.Message, old, retrying))
	relaying := old
	relaying.Activity = &ssp.ActivityProgress{Name: "cleanup-vm", Attempt: 1}
	require.Equal(t, "Running task cleanup-vm", progressMessage(relaying.Message, relaying, retrying))
}
