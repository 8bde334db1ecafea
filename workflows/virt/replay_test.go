package virt

import (
	"testing"

	"go.temporal.io/sdk/worker"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/replaytest"
)

// TestReplayRecordedHistories replays every history in testdata against
// the current code: a migration that moved, one that failed for good and
// one cancelled during its copy, recorded with scripted steps on the real
// Temporal server by integration's
// TestWorkflowsFailAndCancelAsDesignedOnTheRealServer. It fails when a
// change to the workflow code is not replay-safe, and when a recorded
// completed, failed or cancelled run is missing.
func TestReplayRecordedHistories(t *testing.T) {
	replaytest.Check(t, "testdata", func(r worker.WorkflowReplayer) { RegisterWorkflows(r) }, virt.MigrateWorkflowName)
}
