package ssp

import (
	"testing"

	"go.temporal.io/sdk/worker"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/replaytest"
)

// TestReplayRecordedHistories replays every history in testdata against
// the current code: a task and the template pipeline, each completed,
// failed and cancelled (the pipeline's failed and cancelled runs clean up
// their VM), recorded with scripted tasks on the real Temporal server by
// integration's TestWorkflowsFailAndCancelAsDesignedOnTheRealServer. It
// fails when a change to the workflow code is not replay-safe, and when a
// workflow lacks a recorded completed, failed or cancelled run.
func TestReplayRecordedHistories(t *testing.T) {
	replaytest.Check(t, "testdata", func(r worker.WorkflowReplayer) { RegisterWorkflows(r) },
		ssp.RunTektonTaskWorkflowName, ssp.RunTemplatePipelineWorkflowName)
}
