package hco

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedInstall replays a history recorded from a real install
// on the integration stack (VIRTFLOW_RECORD_HISTORY re-records it). It fails
// when a change to the workflow code is not replay-safe.
func TestReplayRecordedInstall(t *testing.T) {
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflowWithOptions(InstallHyperConverged, workflowOptions())
	require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(nil, "testdata/install_history.json"))
}
