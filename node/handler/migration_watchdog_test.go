package handler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/virt"
)

// verbs records what the watchdog asked the launcher; refuse names the
// verbs it refuses.
type verbs struct {
	sent   []string
	refuse map[string]bool
}

func (v *verbs) Command(_ context.Context, verb string) error {
	v.sent = append(v.sent, verb)
	if v.refuse[verb] {
		return errors.New("refused")
	}
	return nil
}

// failureMessage is the message of the failure the step reports.
func failureMessage(t *testing.T, err error) string {
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.True(t, app.NonRetryable())
	return app.Message()
}

func watchdogPlan(postCopy, disruption bool) virt.MigrationPlan {
	return virt.MigrationPlan{CompletionTimeout: 10 * time.Second, ProgressTimeout: 150 * time.Second,
		PostCopy: postCopy, WorkloadDisruption: disruption}
}

// progressing feeds the watchdog a copy whose data left keeps falling,
// one look a second, from start to start+d; it returns the first error.
func progressing(w *watchdog, cl commander, start time.Time, d time.Duration) error {
	left := uint64(1 << 40)
	for t := time.Duration(0); t <= d; t += time.Second {
		left -= 1 << 20
		if err := w.act(context.Background(), cl, left, start.Add(t)); err != nil {
			return err
		}
	}
	return nil
}

func TestWatchdogAbortsACopyPastItsBudgetWithoutDisruption(t *testing.T) {
	start, cl := time.Now(), &verbs{}
	w := newWatchdog(watchdogPlan(false, false), "", start)
	require.Equal(t, kubevirtv1.MigrationPreCopy, w.mode)
	err := progressing(w, cl, start, 11*time.Second)
	require.Equal(t, "Live migration is not completed after 10 seconds and has been aborted", failureMessage(t, err))
	assert.Equal(t, []string{"migrate-abort"}, cl.sent)
}

func TestWatchdogPausesTheGuestAndDoublesTheBudget(t *testing.T) {
	start, cl := time.Now(), &verbs{}
	w := newWatchdog(watchdogPlan(false, true), "", start)
	require.NoError(t, progressing(w, cl, start, 20*time.Second))
	assert.Equal(t, kubevirtv1.MigrationPaused, w.mode)
	assert.Equal(t, []string{"migrate-pause"}, cl.sent, "paused once, not aborted within the doubled budget")
	err := w.act(context.Background(), cl, 1, start.Add(21*time.Second))
	require.Equal(t, "Live migration is not completed after 20 seconds and has been aborted", failureMessage(t, err))
	assert.Equal(t, []string{"migrate-pause", "migrate-abort"}, cl.sent)
}

func TestWatchdogSwitchesToPostCopyAndNeverAbortsIt(t *testing.T) {
	start, cl := time.Now(), &verbs{}
	w := newWatchdog(watchdogPlan(true, true), "", start)
	require.NoError(t, progressing(w, cl, start, 11*time.Second))
	assert.Equal(t, kubevirtv1.MigrationPostCopy, w.mode)
	// Stuck and far past any budget: post-copy is left to finish.
	require.NoError(t, w.act(context.Background(), cl, 1, start.Add(time.Hour)))
	assert.Equal(t, []string{"migrate-postcopy"}, cl.sent)
}

func TestWatchdogRetriesARefusedRemedy(t *testing.T) {
	start, cl := time.Now(), &verbs{refuse: map[string]bool{"migrate-pause": true}}
	w := newWatchdog(watchdogPlan(false, true), "", start)
	require.NoError(t, progressing(w, cl, start, 12*time.Second))
	assert.Equal(t, kubevirtv1.MigrationPreCopy, w.mode)
	assert.Equal(t, []string{"migrate-pause", "migrate-pause"}, cl.sent)
	cl.refuse = nil
	require.NoError(t, w.act(context.Background(), cl, 1, start.Add(13*time.Second)))
	assert.Equal(t, kubevirtv1.MigrationPaused, w.mode)
}

// A remedy refused at every look is retried only within twice the
// budget; then the copy is aborted, never left running for ever.
func TestWatchdogAbortsACopyWhoseRemedyIsAlwaysRefused(t *testing.T) {
	start, cl := time.Now(), &verbs{refuse: map[string]bool{"migrate-postcopy": true}}
	w := newWatchdog(watchdogPlan(true, true), "", start)
	require.NoError(t, progressing(w, cl, start, 20*time.Second))
	err := w.act(context.Background(), cl, 1, start.Add(21*time.Second))
	require.Equal(t, "Live migration is not completed after 20 seconds and has been aborted", failureMessage(t, err))
	assert.Equal(t, kubevirtv1.MigrationPreCopy, w.mode)
	assert.Equal(t, "migrate-abort", cl.sent[len(cl.sent)-1])
}

func TestWatchdogAbortsAStuckCopy(t *testing.T) {
	start, cl := time.Now(), &verbs{}
	plan := watchdogPlan(false, false)
	plan.CompletionTimeout = 0
	w := newWatchdog(plan, "", start)
	require.NoError(t, w.act(context.Background(), cl, 100, start))
	require.NoError(t, w.act(context.Background(), cl, 100, start.Add(150*time.Second)))
	err := w.act(context.Background(), cl, 100, start.Add(151*time.Second))
	require.Equal(t, "Live migration stuck for 151 seconds and has been aborted", failureMessage(t, err))
}

// An agent restarted mid-copy takes the mode back from the VMI: a paused
// copy keeps its doubled budget and is not paused again.
func TestWatchdogResumesFromTheRecordedMode(t *testing.T) {
	start, cl := time.Now(), &verbs{}
	w := newWatchdog(watchdogPlan(false, true), kubevirtv1.MigrationPaused, start)
	require.NoError(t, progressing(w, cl, start, 20*time.Second))
	assert.Empty(t, cl.sent)
	post := newWatchdog(watchdogPlan(true, true), kubevirtv1.MigrationPostCopy, start)
	require.NoError(t, post.act(context.Background(), cl, 1, start.Add(time.Hour)))
	assert.Empty(t, cl.sent)
}

// The source's guest paused by the monitor says so, as upstream's
// condition; once the migration ended, a paused guest is its user's.
func TestAGuestPausedByTheMigrationMonitorSaysSo(t *testing.T) {
	started := metav1.Now()
	v := &kubevirtv1.VirtualMachineInstance{Status: kubevirtv1.VirtualMachineInstanceStatus{
		MigrationState: &kubevirtv1.VirtualMachineInstanceMigrationState{SourceNode: "node-1", StartTimestamp: &started, Mode: kubevirtv1.MigrationPaused}}}
	reason, msg := pausedReason(v, "node-1")
	assert.Equal(t, "PausedByMigrationMonitor", reason)
	assert.Equal(t, "VMI was paused by the migration monitor", msg)
	reason, _ = pausedReason(v, "node-2")
	assert.Equal(t, "PausedByUser", reason, "the target's guest is not the one the monitor paused")
	v.Status.MigrationState.Completed = true
	reason, msg = pausedReason(v, "node-1")
	assert.Equal(t, "PausedByUser", reason)
	assert.Equal(t, "VMI was paused by user", msg)
}

func TestASourceInPostCopyIsNotAPausedVMI(t *testing.T) {
	started := metav1.Now()
	v := &kubevirtv1.VirtualMachineInstance{Status: kubevirtv1.VirtualMachineInstanceStatus{
		MigrationState: &kubevirtv1.VirtualMachineInstanceMigrationState{SourceNode: "node-1", StartTimestamp: &started, Mode: kubevirtv1.MigrationPostCopy}}}
	reason, _ := pausedReason(v, "node-1")
	assert.Empty(t, reason)
}
