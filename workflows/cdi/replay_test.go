package cdi

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayRecordedHistories replays histories of real runs, recorded by
// the integration tests with VIRTFLOW_RECORD_<KIND>_HISTORY set:
//   - import: TestImportResumesAfterTheNodeWorkerIsKilled (the node worker
//     was killed halfway, so the history has a retried attempt);
//   - upload: TestUploadNeedsAValidTokenForTheClaim;
//   - clone: TestCloneAcrossNamespacesNeedsPermission;
//   - cron: TestDataImportCronFollowsItsSource (a poll that imported a
//     changed source, pointed the DataSource at it and garbage-collected).
//
// It fails when a change to the workflow code is not replay-safe.
func TestReplayRecordedHistories(t *testing.T) {
	for file, wf := range map[string]struct {
		fn   any
		opts workflow.RegisterOptions
	}{
		"testdata/import_history.json": {ImportDataVolume, importOptions()},
		"testdata/upload_history.json": {UploadDataVolume, uploadOptions()},
		"testdata/clone_history.json":  {CloneDataVolume, workflow.RegisterOptions{Name: CloneWorkflowName}},
		"testdata/cron_history.json":   {PollDataImportCron, pollCronOptions()},
	} {
		replayer := worker.NewWorkflowReplayer()
		replayer.RegisterWorkflowWithOptions(wf.fn, wf.opts)
		require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(nil, file), file)
	}
}
