package ssptasks

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// signals records the reports the activity sends its workflow.
type signals struct {
	mu      sync.Mutex
	reports []ssp.ActivityProgress
}

func (s *signals) SignalWorkflow(_ context.Context, _, _, name string, arg any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == ssp.ProgressSignalName {
		s.reports = append(s.reports, arg.(ssp.ActivityProgress))
	}
	return nil
}

// An attempt reports its start to its workflow and, when it fails, why,
// in the words Temporal records; a success adds nothing.
func TestRunTaskStepReportsItsAttemptToItsWorkflow(t *testing.T) {
	a, _, env := setup(t, failing(fmt.Errorf("creating VM: %w", apierrors.NewServiceUnavailable("etcd is restarting"))), makeConfigMap)
	rec := &signals{}
	a.Signals = rec
	_, err := run(env, a, ssp.TaskRequest{Task: "fail", Namespace: "vms", Params: cmReq.Params})
	require.Error(t, err)
	_, err = run(env, a, cmReq)
	require.NoError(t, err)
	require.Equal(t, []ssp.ActivityProgress{
		{Name: "fail", Attempt: 1},
		{Name: "fail", Attempt: 1, Failure: "creating VM: etcd is restarting"},
		{Name: "make-config-map", Attempt: 1},
	}, rec.reports)
}
