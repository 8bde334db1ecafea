package typed_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/typed"
)

type request struct{ Key string }

type result struct{ Size int }

var (
	measure = typed.Activity[request, result]{Name: "test.Measure"}
	note    = typed.VoidActivity[request]{Name: "test.Note"}
	clean   = typed.VoidActivity2[request, bool]{Name: "test.Clean"}
	run     = typed.Workflow[request, []result]{Name: "test.Run"}
)

// runAll calls every kind of descriptor, so the test sees each one's
// scheduling and decoding.
func runAll(ctx workflow.Context, in request) ([]result, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	first, err := measure.Execute(ctx, in)
	if err != nil {
		return nil, err
	}
	second, err := measure.Start(ctx, request{Key: in.Key + "2"}).Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := note.Execute(ctx, in); err != nil {
		return nil, err
	}
	return []result{first, second}, clean.Execute(ctx, in, true)
}

// TestDescriptorsCallActivitiesByNameWithTheirArguments checks that the
// typed calls schedule the named activities with the arguments as given,
// a two-argument activity with two payloads, and decode the results.
func TestDescriptorsCallActivitiesByNameWithTheirArguments(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var cleaned []any
	typed.RegisterWorkflows(env, run.Bind(runAll))
	typed.RegisterActivities(env,
		measure.Bind(func(_ context.Context, r request) (result, error) { return result{Size: len(r.Key)}, nil }),
		note.Bind(func(context.Context, request) error { return nil }),
		clean.Bind(func(_ context.Context, r request, removeDisk bool) error {
			cleaned = append(cleaned, r, removeDisk)
			return nil
		}),
	)
	payloads := map[string]int{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		payloads[info.ActivityType.Name] = countPayloads(t, args)
	})

	env.ExecuteWorkflow(run.Name, request{Key: "abc"})

	require.NoError(t, env.GetWorkflowError())
	var out []result
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, []result{{Size: 3}, {Size: 4}}, out)
	require.Equal(t, []any{request{Key: "abc"}, true}, cleaned)
	require.Equal(t, map[string]int{"test.Measure": 1, "test.Note": 1, "test.Clean": 2}, payloads)
}

// countPayloads counts the encoded arguments; the interface hides the
// payloads, which the test environment's values carry.
func countPayloads(t *testing.T, args converter.EncodedValues) int {
	t.Helper()
	p, ok := args.(interface{ Payloads() *commonpb.Payloads })
	require.True(t, ok, "the test environment's arguments carry their payloads")
	return len(p.Payloads().GetPayloads())
}
