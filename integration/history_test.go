//go:build integration

package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
)

// recordEnv, when set, makes the tests write the histories the replay
// tests use: `VIRTFLOW_RECORD_HISTORIES=1 make integration` records every
// one that is missing.
const recordEnv = "VIRTFLOW_RECORD_HISTORIES"

// recordHistory writes a workflow's history to file (relative to the
// repository root) when recordEnv is set and the file does not exist: a
// recorded history is kept, and a run of changed workflow code is recorded
// beside it under a name of its own, so both keep replaying.
func recordHistory(t *testing.T, tc client.Client, file, workflowID string) {
	if os.Getenv(recordEnv) == "" {
		return
	}
	if _, err := os.Stat(filepath.Join("..", file)); err == nil {
		t.Logf("%s exists; not recording over it", file)
		return
	}
	hist := &historypb.History{}
	it := tc.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, ev)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("..", file), data, 0o644))
	t.Logf("recorded %d events of %s into %s", len(hist.Events), workflowID, file)
}

// activityCount counts scheduled activities of a type in a workflow's history.
func activityCount(t *testing.T, tc client.Client, workflowID, activityType string) int {
	n := 0
	it := tc.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == activityType {
			n++
		}
	}
	return n
}
