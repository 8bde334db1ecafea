// Package replaytest enforces the workflow versioning policy from the
// workflow packages' tests: every history recorded in a package's testdata
// replays against the current code, and every workflow type has a recorded
// completed, failed and cancelled run. A change that is not replay-safe and
// not behind workflow.GetVersion fails the replay. It reads files, so it
// lives outside workflows/, whose code must stay free of side effects.
package replaytest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// Outcomes every workflow type needs a recorded history of.
var Outcomes = []enumspb.EventType{
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
}

// Recorded is one history file: which workflow type it ran and how it
// ended.
type Recorded struct {
	Path    string
	Type    string
	Outcome enumspb.EventType
	History *historypb.History
}

// Load reads every *.json history in dir.
func Load(t *testing.T, dir string) []Recorded {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	var out []Recorded
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
		f.Close()
		require.NoError(t, err, p)
		events := h.GetEvents()
		require.NotEmpty(t, events, p)
		started := events[0].GetWorkflowExecutionStartedEventAttributes()
		require.NotNil(t, started, "%s does not begin with WorkflowExecutionStarted", p)
		out = append(out, Recorded{Path: p, Type: started.GetWorkflowType().GetName(), Outcome: events[len(events)-1].GetEventType(), History: h})
	}
	return out
}

// Check replays every history in dir with the workflows register adds,
// and requires a completed, a failed and a cancelled history of each of
// types.
func Check(t *testing.T, dir string, register func(worker.WorkflowReplayer), types ...string) {
	t.Helper()
	recorded := Load(t, dir)
	seen := map[string]map[enumspb.EventType]string{}
	for _, r := range recorded {
		replayer := worker.NewWorkflowReplayer()
		register(replayer)
		require.NoError(t, replayer.ReplayWorkflowHistory(nil, r.History), "replaying %s", r.Path)
		if seen[r.Type] == nil {
			seen[r.Type] = map[enumspb.EventType]string{}
		}
		seen[r.Type][r.Outcome] = r.Path
	}
	for _, typ := range types {
		for _, o := range Outcomes {
			require.Contains(t, seen[typ], o, "%s has no recorded history that ends %s in %s", typ, o, dir)
		}
	}
}
