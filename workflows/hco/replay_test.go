package hco

import (
	"testing"

	"go.temporal.io/sdk/worker"

	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/replaytest"
)

// TestReplayRecordedHistories replays every history in testdata: runs of
// the install and uninstall on the integration stack, recorded with
// VIRTFLOW_RECORD_HISTORIES set (see integration/histories_test.go). It
// fails when a change to the workflow code is not replay-safe, and when a
// workflow lacks a recorded completed, failed or cancelled run.
func TestReplayRecordedHistories(t *testing.T) {
	replaytest.Check(t, "testdata", func(r worker.WorkflowReplayer) { RegisterWorkflows(r) },
		hco.InstallWorkflowName, hco.UninstallWorkflowName)
}
