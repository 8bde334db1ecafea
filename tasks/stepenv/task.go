package stepenv

import (
	"context"
	"fmt"
	"io"

	"k8s.io/client-go/rest"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// Task is one of the Tekton tasks as code: the container step program and
// the durable task's activity both call Run, with the Task's parameters by
// their Task YAML names.
type Task struct {
	// Name is the Task's name, upstream's (e.g. "create-vm-from-template").
	Name string
	// Run does the task's work.
	Run func(ctx context.Context, env Env, params Params) error
}

// Env is what a task runs with.
type Env struct {
	// Client reads and writes every kind virtflow knows.
	Client crclient.Client
	// Config is Client's configuration, for streams (the serial console).
	Config *rest.Config
	// Namespace is the active namespace: the TaskRun's (or CustomRun's).
	Namespace string
	// Results receives the task's results.
	Results *Results
	// Log receives what the task reports as it goes (the step's log).
	Log io.Writer
	// Progress, when set, is told the task is alive and where it is; the
	// durable tasks heartbeat with it. Long waits call it at least every
	// few seconds.
	Progress func(detail string)
}

// Alive reports progress when someone listens.
func (e Env) Alive(detail string) {
	if e.Progress != nil {
		e.Progress(detail)
	}
}

// Logf writes a line to Log when there is one.
func (e Env) Logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}

// Params are a task's parameters by name: string parameters in Strings,
// array parameters in Arrays. A parameter absent from both has its Task
// default (the caller, Tekton or the durable runner, fills defaults in).
type Params struct {
	Strings map[string]string
	Arrays  map[string][]string
}

// String is string parameter name, "" when absent.
func (p Params) String(name string) string { return p.Strings[name] }

// Array is array parameter name, nil when absent.
func (p Params) Array(name string) []string { return p.Arrays[name] }
