// Package typed binds Temporal activity and workflow type names to their
// argument and result types, so that a workflow calling an activity with
// the wrong input, or a worker registering an implementation of the wrong
// signature, fails to compile instead of failing at run time.
//
// The descriptors only add types: each call is the same
// workflow.ExecuteActivity with the same name and the same arguments, in
// the same order, so recorded histories replay unchanged. An activity of
// two arguments stays one of two arguments (VoidActivity2), since folding
// them into a struct would change the payloads histories hold.
//
// Errors are returned as the SDK returns them, unwrapped: workflows rely on
// an activity's failure type and message reaching their caller as they
// are, and each call site knows best what context to add.
package typed

import (
	"context"

	"go.temporal.io/sdk/workflow"
)

// Activity is an activity type name bound to its one argument's type and
// its result's type.
type Activity[In, Out any] struct {
	// Name is the activity type, as histories record it.
	Name string
}

// Execute runs the activity with ctx's activity options and waits for its
// result.
func (a Activity[In, Out]) Execute(ctx workflow.Context, in In) (Out, error) {
	return a.Start(ctx, in).Get(ctx)
}

// Start schedules the activity and returns its pending result, for
// workflows that run several activities at once.
func (a Activity[In, Out]) Start(ctx workflow.Context, in In) Future[Out] {
	return Future[Out]{f: workflow.ExecuteActivity(ctx, a.Name, in)}
}

// Bind pairs an implementation with the activity type name; only a
// function of the descriptor's signature compiles.
func (a Activity[In, Out]) Bind(fn func(context.Context, In) (Out, error)) ActivityBinding {
	return ActivityBinding{name: a.Name, fn: fn}
}

// Future is the pending result of a typed activity.
type Future[Out any] struct {
	f workflow.Future
}

// Get waits for the activity and decodes its result.
func (f Future[Out]) Get(ctx workflow.Context) (Out, error) {
	var out Out
	err := f.f.Get(ctx, &out)
	return out, err
}

// VoidActivity is an activity type name bound to its one argument's type;
// the activity returns only an error.
type VoidActivity[In any] struct {
	// Name is the activity type, as histories record it.
	Name string
}

// Execute runs the activity with ctx's activity options and waits for it
// to finish.
func (a VoidActivity[In]) Execute(ctx workflow.Context, in In) error {
	return workflow.ExecuteActivity(ctx, a.Name, in).Get(ctx, nil)
}

// Bind pairs an implementation with the activity type name; only a
// function of the descriptor's signature compiles.
func (a VoidActivity[In]) Bind(fn func(context.Context, In) error) ActivityBinding {
	return ActivityBinding{name: a.Name, fn: fn}
}

// VoidActivity2 is an activity type name bound to its two arguments'
// types; the activity returns only an error. The two arguments stay two
// payloads, as histories recorded them.
type VoidActivity2[In1, In2 any] struct {
	// Name is the activity type, as histories record it.
	Name string
}

// Execute runs the activity with ctx's activity options and waits for it
// to finish.
func (a VoidActivity2[In1, In2]) Execute(ctx workflow.Context, in1 In1, in2 In2) error {
	return workflow.ExecuteActivity(ctx, a.Name, in1, in2).Get(ctx, nil)
}

// Bind pairs an implementation with the activity type name; only a
// function of the descriptor's signature compiles.
func (a VoidActivity2[In1, In2]) Bind(fn func(context.Context, In1, In2) error) ActivityBinding {
	return ActivityBinding{name: a.Name, fn: fn}
}
