//go:build integration

package integration

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
)

// recordHistory rewrites a replay test's history from a real run when the
// environment variable envVar (VIRTFLOW_RECORD_HISTORY for the install,
// VIRTFLOW_RECORD_{IMPORT,UPLOAD,CLONE,CRON}_HISTORY for CDI's workflows)
// names the file to write.
func recordHistory(t *testing.T, envVar, workflowID string) {
	path := os.Getenv(envVar)
	if path == "" {
		return
	}
	hist := &historypb.History{}
	it := env.tc.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, ev)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	t.Logf("recorded %d events of %s into %s", len(hist.Events), workflowID, path)
}

// activityCount counts scheduled activities of a type in a workflow's history.
func activityCount(t *testing.T, workflowID, activityType string) int {
	n := 0
	it := env.tc.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == activityType {
			n++
		}
	}
	return n
}
