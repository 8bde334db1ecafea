package storage

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// runInActivity runs fn in an activity's context, which reports need.
func runInActivity(t *testing.T, fn func(ctx context.Context) error) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: "drive"})
	_, err := env.ExecuteActivity("drive")
	require.NoError(t, err)
}

// The percentage is reported when it moved by a point and five seconds
// passed; the end is reported at once, and nothing after it.
func TestReportsAreThrottledAndEndWithTheAttempt(t *testing.T) {
	rec := &signals{}
	a := &Activities{Signals: rec}
	now := time.Unix(0, 0)
	runInActivity(t, func(ctx context.Context) error {
		rep := a.reporter(ctx, cdi.ImportDiskName)
		rep.now = func() time.Time { return now }
		rep.start(ctx, "")
		rep.progress(ctx, 0.5)
		now = now.Add(time.Second)
		rep.progress(ctx, 3)
		now = now.Add(5 * time.Second)
		rep.progress(ctx, 3.5)
		now = now.Add(10 * time.Second)
		rep.progress(ctx, 4)
		rep.end(ctx, errors.New("dial tcp 127.0.0.1:1: connect: connection refused"))
		rep.progress(ctx, 90)
		rep.end(ctx, nil)
		return nil
	})
	name := cdi.ImportDiskName
	require.Equal(t, []cdi.ActivityProgress{
		{Name: name, Attempt: 1},
		{Name: name, Attempt: 1, Percent: 3.5},
		{Name: name, Attempt: 1, Percent: 4, Failure: "dial tcp 127.0.0.1:1: connect: connection refused"},
	}, rec.sent())
}

// A failure is reported in the words Temporal records: an application
// error's own message, without its type.
func TestAFailureIsReportedAsTemporalRecordsIt(t *testing.T) {
	err := temporal.NewApplicationError("Unable to transfer source data: no data received", cdi.ErrTypeTransferStalled)
	require.Equal(t, "Unable to transfer source data: no data received", failureMessage(err))
	require.Equal(t, "reading: EOF", failureMessage(errors.New("reading: EOF")))
}

// An upload reports its server's address while it listens, and drops it
// when the attempt ends; without a Signaller nothing is sent.
func TestAnUploadReportsItsServer(t *testing.T) {
	rec := &signals{}
	a := &Activities{Signals: rec}
	runInActivity(t, func(ctx context.Context) error {
		rep := a.reporter(ctx, cdi.ReceiveUploadName)
		rep.start(ctx, "10.0.0.1:4000")
		rep.end(ctx, nil)
		(&Activities{}).reporter(ctx, cdi.ReceiveUploadName).start(ctx, "10.0.0.1:4001")
		return nil
	})
	require.Equal(t, []cdi.ActivityProgress{
		{Name: cdi.ReceiveUploadName, Attempt: 1, UploadServer: "10.0.0.1:4000"},
		{Name: cdi.ReceiveUploadName, Attempt: 1, Percent: 100},
	}, rec.sent())
}
