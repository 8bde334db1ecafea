package cdi

import (
	"testing"

	"go.temporal.io/sdk/worker"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/replaytest"
)

// TestReplayRecordedHistories replays every history in testdata against
// the current code. The completed runs were recorded on the integration
// stack: the import after its node worker was killed halfway (so it holds a
// retried attempt), an upload, a clone across namespaces, and a cron poll
// that imported a changed source (recorded before polls recorded
// themselves on their cron, so it replays the workflow.DefaultVersion
// branch). The failed and cancelled runs were recorded by
// integration/histories_test.go. It fails when a change to the workflow
// code is not replay-safe, and when a workflow lacks a recorded completed,
// failed or cancelled run.
func TestReplayRecordedHistories(t *testing.T) {
	replaytest.Check(t, "testdata", func(r worker.WorkflowReplayer) { RegisterWorkflows(r) },
		cdi.ImportWorkflowName, cdi.UploadWorkflowName, cdi.CloneWorkflowName, cdi.PollCronWorkflowName)
}
