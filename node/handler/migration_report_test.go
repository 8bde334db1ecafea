package handler

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
)

// signalled is one signal a Signaller was asked to send.
type signalled struct {
	workflowID, name string
	arg              any
}

// signalRecorder records what it is asked to send; fail makes it refuse.
type signalRecorder struct {
	mu   sync.Mutex
	got  []signalled
	fail error
}

func (r *signalRecorder) SignalWorkflow(_ context.Context, workflowID, _, name string, arg any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, signalled{workflowID: workflowID, name: name, arg: arg})
	return r.fail
}

func (r *signalRecorder) failWith(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = err
}

func (r *signalRecorder) sent() []signalled {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]signalled(nil), r.got...)
}

// inActivity runs fn in an activity's context, which a report needs to
// find its workflow.
func inActivity(t *testing.T, fn func(ctx context.Context) error) {
	t.Helper()
	env := (&testsuite.WorkflowTestSuite{}).NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: "drive"})
	_, err := env.ExecuteActivity("drive")
	require.NoError(t, err)
}

// A copy is reported once it has counters, then at most every five
// seconds and only when they changed, and an hour into the copy at most
// every thirty; a refused report does not stop the next one.
func TestCopyReportsAreThrottled(t *testing.T) {
	rec := &signalRecorder{}
	m := &Migrations{signals: rec}
	now := time.Unix(1000, 0)
	p := func(processed uint64) virt.CopyProgress {
		return virt.CopyProgress{DataTotal: 100, DataProcessed: processed, DataRemaining: 100 - processed, Iteration: 1}
	}
	inActivity(t, func(ctx context.Context) error {
		rep := m.reporter()
		rep.now, rep.start = func() time.Time { return now }, now
		rep.report(ctx, virt.CopyProgress{})
		rep.report(ctx, p(10))
		now = now.Add(time.Second)
		rep.report(ctx, p(20))
		now = now.Add(5 * time.Second)
		rep.report(ctx, p(30))
		now = now.Add(10 * time.Second)
		rep.report(ctx, p(30))
		rec.failWith(errors.New("the frontend is down"))
		rep.report(ctx, p(40))
		now = now.Add(6 * time.Second)
		rec.failWith(nil)
		rep.report(ctx, p(50))
		now = now.Add(time.Hour)
		rep.report(ctx, p(60))
		now = now.Add(10 * time.Second)
		rep.report(ctx, p(70))
		now = now.Add(21 * time.Second)
		rep.report(ctx, p(80))
		return nil
	})
	var got []any
	for _, s := range rec.sent() {
		require.Equal(t, virt.ProgressSignalName, s.name)
		require.NotEmpty(t, s.workflowID, "sent to the activity's own workflow")
		got = append(got, s.arg)
	}
	require.Equal(t, []any{p(10), p(30), p(40), p(50), p(60), p(80)}, got)

	(&Migrations{}).reporter().report(context.Background(), p(90))
	require.Len(t, rec.sent(), 6, "an agent without a Temporal client reports nothing")
}

// The source's copy sends libvirt's job to its migration while it runs.
func TestTheSourceReportsItsCopyToItsMigration(t *testing.T) {
	w := newMigrationWorld(t)
	rec := &signalRecorder{}
	w.source.signals = rec
	src := launcherOf(t, w.source, w.srcPod)
	w.req.Endpoint = virt.TargetEndpoint{Address: "127.0.0.1", Ports: map[string]int{"40001": 0, "40002": 49152}}
	src.onMigrate = func(f *scriptedLauncher) {
		f.migration.Progress = libvirt.JobProgress{Active: true, DataTotal: 2 << 30, DataProcessed: 3 << 29, DataRemaining: 1 << 29,
			MemoryDirtyRate: 12 << 20, MemoryIteration: 3, MemoryBps: 100 << 20}
		go func() {
			require.Eventually(t, func() bool { return len(rec.sent()) > 0 }, 5*time.Second, 10*time.Millisecond)
			f.set(func(f *scriptedLauncher) { f.migration.Phase = launcher.MigrationSucceeded })
		}()
	}
	_, err := execute(t, w.source, virt.MigrateDomainName, w.req)
	require.NoError(t, err)
	sent := rec.sent()
	require.Len(t, sent, 1, "unchanged counters are not sent again")
	require.Equal(t, virt.CopyProgress{DataTotal: 2 << 30, DataProcessed: 3 << 29, DataRemaining: 1 << 29,
		DirtyRate: 12 << 20, Iteration: 3, MemoryTransferRate: 100 << 20}, sent[0].arg)
}
