package typed_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/typed"
)

var (
	ping    = typed.Signal[request]{Name: "test.ping"}
	collect = typed.Workflow[int, []request]{Name: "test.Collect"}
	sendOne = typed.VoidActivity[request]{Name: "test.SendOne"}
)

// sent records what a Signaller was asked to send.
type sent struct {
	workflowID, runID, name string
	arg                     any
}

type recorder struct{ sent []sent }

func (r *recorder) SignalWorkflow(_ context.Context, workflowID, runID, name string, arg any) error {
	r.sent = append(r.sent, sent{workflowID, runID, name, arg})
	return nil
}

// collectPings waits for a ping, then takes those that came with it.
func collectPings(ctx workflow.Context, _ int) ([]request, error) {
	ch := ping.Channel(ctx)
	out := []request{ch.Receive(ctx)}
	for r, ok := ch.ReceiveAsync(); ok; r, ok = ch.ReceiveAsync() {
		out = append(out, r)
	}
	return out, nil
}

// A typed signal reaches the workflow's typed channel as it was sent, and
// an activity's send goes to its own workflow run under the signal's name.
func TestSignalsCarryTheirTypeFromSenderToChannel(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	typed.RegisterWorkflows(env, collect.Bind(collectPings))
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflowSkippingWorkflowTask(ping.Name, request{Key: "a"})
		env.SignalWorkflowSkippingWorkflowTask(ping.Name, request{Key: "b"})
		env.SignalWorkflow(ping.Name, request{Key: "c"})
	}, time.Minute)
	env.ExecuteWorkflow(collect.Name, 3)
	require.NoError(t, env.GetWorkflowError())
	var got []request
	require.NoError(t, env.GetWorkflowResult(&got))
	require.Equal(t, []request{{Key: "a"}, {Key: "b"}, {Key: "c"}}, got)

	rec := &recorder{}
	aenv := s.NewTestActivityEnvironment()
	typed.RegisterActivities(aenv, sendOne.Bind(func(ctx context.Context, r request) error {
		return ping.SendFromActivity(ctx, rec, r)
	}))
	_, err := aenv.ExecuteActivity(sendOne.Name, request{Key: "d"})
	require.NoError(t, err)
	require.Len(t, rec.sent, 1)
	require.Equal(t, ping.Name, rec.sent[0].name)
	require.Equal(t, request{Key: "d"}, rec.sent[0].arg)
	require.NotEmpty(t, rec.sent[0].workflowID, "sent to the activity's workflow")
}
