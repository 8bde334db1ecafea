// Package ssptasks is the activity that runs the durable Tekton tasks: any
// task of the catalog, as the service account its CustomRun names (read
// from the CustomRun, never taken from the workflow's input), with the
// same code its container step runs.
package ssptasks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"k8s.io/client-go/rest"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/typed"
	"github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// heartbeatEvery is how often a running task heartbeats, whether or not
// it reports progress: the workflow's heartbeat timeout only notices a lost
// worker, and a cancellation arrives on a heartbeat.
const heartbeatEvery = 5 * time.Second

// Activities run the tasks of a catalog.
type Activities struct {
	// Client is the worker's own client: it reads the CustomRun a task's
	// workflow serves, whose service account the task acts as.
	Client crclient.Client
	// Config is the worker's own client configuration; each task acts as
	// its CustomRun's service account through it.
	Config *rest.Config
	// Tasks is the catalog: every task that can run durably, by name.
	Tasks map[string]stepenv.Task
	// Defaults completes a run's params as Tekton completes a TaskRun's
	// from the Task's declaration, and rejects what Tekton would; nil
	// passes the params as they are.
	Defaults func(task string, given stepenv.Params) (stepenv.Params, error)
	// NewClient builds the client a task runs with from the impersonating
	// configuration; nil builds one for every kind virtflow knows.
	NewClient func(cfg *rest.Config) (crclient.Client, error)
	// HeartbeatEvery replaces heartbeatEvery when set (tests).
	HeartbeatEvery time.Duration
	// Signals reports each attempt to its own workflow
	// (ssp.ProgressSignal), where the CustomRun's controller reads it from
	// the memo; nil reports nothing.
	Signals typed.Signaller
	// executionID is the workflow the running activity belongs to; tests
	// replace it.
	executionID func(context.Context) string
}

var _ ssp.TaskActivities = (*Activities)(nil)

// RunTaskStep runs the requested task as its CustomRun's service account,
// once the CustomRun is found to run it. Bad input fails for good; a task
// that fails fails for good too, as its container would exit 1, unless it
// failed to reach the API server, which is retried. Each attempt reports
// its start and its failure to the workflow.
func (a *Activities) RunTaskStep(ctx context.Context, req ssp.TaskRequest) (res ssp.TaskResult, err error) {
	a.started(ctx, req.Task)
	defer func() { a.ended(ctx, req.Task, err) }()
	return a.runTask(ctx, req)
}

// runTask runs the task as its CustomRun's service account.
func (a *Activities) runTask(ctx context.Context, req ssp.TaskRequest) (ssp.TaskResult, error) {
	sa, err := a.serviceAccount(ctx, req)
	if err != nil {
		return ssp.TaskResult{}, err
	}
	req.ServiceAccount = sa
	task, params, err := a.prepare(req)
	if err != nil {
		return ssp.TaskResult{}, err
	}
	cfg, c, err := a.client(req)
	if err != nil {
		return ssp.TaskResult{}, err
	}
	hb := startHeartbeat(ctx, a.heartbeatEvery(), "starting task "+req.Task)
	defer hb.stop()
	results := map[string]string{}
	env := stepenv.Env{
		Client: c, Config: cfg, Namespace: req.Namespace,
		Results: &stepenv.Results{Values: results}, Log: newLogWriter(ctx), Progress: hb.set,
	}
	if err := task.Run(ctx, env, params); err != nil {
		return ssp.TaskResult{}, classify(ctx, err)
	}
	return ssp.TaskResult{Results: results}, nil
}

// prepare finds the task and completes its params.
func (a *Activities) prepare(req ssp.TaskRequest) (stepenv.Task, stepenv.Params, error) {
	task, ok := a.Tasks[req.Task]
	if !ok {
		names := make([]string, 0, len(a.Tasks))
		for name := range a.Tasks {
			names = append(names, name)
		}
		slices.Sort(names)
		known := "there are none"
		if len(names) > 0 {
			known = "the durable tasks are " + strings.Join(names, ", ")
		}
		return stepenv.Task{}, stepenv.Params{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("no durable task %q: %s", req.Task, known), ssp.ErrTypeUnknownTask, nil)
	}
	if req.Namespace == "" {
		return stepenv.Task{}, stepenv.Params{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("task %s has no namespace to run in", req.Task), ssp.ErrTypeInvalidParams, nil)
	}
	params := stepenv.Params{Strings: req.Params.Strings, Arrays: req.Params.Arrays}
	if a.Defaults == nil {
		return task, params, nil
	}
	params, err := a.Defaults(req.Task, params)
	if err != nil {
		return stepenv.Task{}, stepenv.Params{}, temporal.NewNonRetryableApplicationError(err.Error(), ssp.ErrTypeInvalidParams, nil)
	}
	return task, params, nil
}

// client is a client acting as the request's service account (its
// CustomRun's, by now), so that a durable task can do only what the same
// container task could.
func (a *Activities) client(req ssp.TaskRequest) (*rest.Config, crclient.Client, error) {
	if a.Config == nil {
		return nil, nil, errors.New("the durable tasks have no client configuration")
	}
	sa := req.ServiceAccount
	if sa == "" {
		sa = ssp.DefaultServiceAccount
	}
	cfg := rest.CopyConfig(a.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: ServiceAccountUser(req.Namespace, sa)}
	newClient := a.NewClient
	if newClient == nil {
		newClient = defaultClient
	}
	c, err := newClient(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("building the client of service account %s/%s: %w", req.Namespace, sa, err)
	}
	return cfg, c, nil
}

// ServiceAccountUser is the user name a service account authenticates as.
func ServiceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

func defaultClient(cfg *rest.Config) (crclient.Client, error) {
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	return crclient.New(cfg, crclient.Options{Scheme: s})
}

func (a *Activities) heartbeatEvery() time.Duration {
	if a.HeartbeatEvery > 0 {
		return a.HeartbeatEvery
	}
	return heartbeatEvery
}
