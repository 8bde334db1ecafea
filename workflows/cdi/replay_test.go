package cdi

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedImport replays the history of a real import whose node
// worker was killed halfway (recorded by the integration test
// TestImportResumesAfterTheNodeWorkerIsKilled with
// VIRTFLOW_RECORD_IMPORT_HISTORY set). It fails when a change to the
// workflow code is not replay-safe.
func TestReplayRecordedImport(t *testing.T) {
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflowWithOptions(ImportDataVolume, importOptions())
	require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(nil, "testdata/import_history.json"))
}
