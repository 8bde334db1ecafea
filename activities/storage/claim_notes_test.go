package storage

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// signals records the progress reports an activity sends its workflow.
type signals struct {
	mu      sync.Mutex
	reports []cdi.ActivityProgress
	ids     []string
}

func (s *signals) SignalWorkflow(_ context.Context, workflowID, _, name string, arg any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == cdi.ProgressSignalName {
		s.reports = append(s.reports, arg.(cdi.ActivityProgress))
		s.ids = append(s.ids, workflowID)
	}
	return nil
}

func (s *signals) sent() []cdi.ActivityProgress {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]cdi.ActivityProgress(nil), s.reports...)
}

// A disk activity reports its attempt and progress to its own workflow,
// and writes no status onto the claim; cleanup removes the notes earlier
// builds wrote there.
func TestCloneReportsToItsWorkflowAndCleanupClearsTheClaim(t *testing.T) {
	cl := newCluster(t)
	_, srcDir := cl.volume("ns", "source", nil, testNode)
	dv, dstDir := cl.dataVolume("ns", "target", cloneOf("ns", "source"))
	cl.claim("target").Annotations = map[string]string{"keep": "me"}
	require.NoError(t, os.WriteFile(filepath.Join(srcDir, cdi.DiskFileName), make([]byte, 4<<20), 0o644))

	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	rec := &signals{}
	a := cl.activities(cdi.CloneWorkflowID(string(dv.UID)))
	a.Signals = rec
	c := a.Client
	env.RegisterActivity(a)
	req := cloneRequest(dv, srcDir, dstDir, 4<<20)
	_, err := env.ExecuteActivity(a.CloneDisk, req)
	require.NoError(t, err)
	sent := rec.sent()
	require.Equal(t, cdi.ActivityProgress{Name: cdi.CloneDiskName, Attempt: 1}, sent[0], "the attempt's start")
	require.Equal(t, cdi.ActivityProgress{Name: cdi.CloneDiskName, Attempt: 1, Percent: 100}, sent[len(sent)-1], "its end")
	require.NotEmpty(t, rec.ids[0], "sent to the activity's own workflow")
	got := &corev1.PersistentVolumeClaim{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "target"}, got))
	require.Equal(t, map[string]string{"keep": "me"}, got.Annotations, "no status on the claim")

	got.Annotations[cdi.AnnProgress], got.Annotations[cdi.AnnAttempt] = "42.00%", "2"
	require.NoError(t, c.Update(context.Background(), got))
	_, err = env.ExecuteActivity(a.CleanupImport, cdi.ImportRequest{Namespace: "ns", Claim: "target", VolumeDir: dstDir, Key: req.Key}, false)
	require.NoError(t, err)
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "target"}, got))
	require.Equal(t, map[string]string{"keep": "me"}, got.Annotations)
}
