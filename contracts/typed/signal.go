package typed

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"
)

// Signaller is the one method of a Temporal client that signals a
// workflow. Activities that report to their workflow hold this rather than
// a whole client, so that their tests can record what they send.
type Signaller interface {
	// SignalWorkflow sends arg on the named signal to the run (the
	// workflow's current run when runID is empty).
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Signal is a signal name bound to its payload's type, so that a sender
// and the workflow receiving it cannot disagree on what it carries.
type Signal[T any] struct {
	// Name is the signal's name, as histories record it.
	Name string
}

// Send signals the run workflowID/runID with v.
func (s Signal[T]) Send(ctx context.Context, c Signaller, workflowID, runID string, v T) error {
	return c.SignalWorkflow(ctx, workflowID, runID, s.Name, v)
}

// SendFromActivity signals v to the run of the workflow that scheduled
// the activity ctx belongs to: an activity reporting to its own workflow
// needs no ID passed in its input.
func (s Signal[T]) SendFromActivity(ctx context.Context, c Signaller, v T) error {
	run := activity.GetInfo(ctx).WorkflowExecution
	return s.Send(ctx, c, run.ID, run.RunID, v)
}

// Channel is the signal's channel in the workflow ctx belongs to.
func (s Signal[T]) Channel(ctx workflow.Context) SignalChannel[T] {
	return SignalChannel[T]{c: workflow.GetSignalChannel(ctx, s.Name)}
}

// SignalChannel receives a typed signal's payloads. A payload that does not
// decode as T is dropped by the SDK (and logged), not delivered.
type SignalChannel[T any] struct {
	c workflow.ReceiveChannel
}

// Receive waits for the next payload.
func (c SignalChannel[T]) Receive(ctx workflow.Context) T {
	var v T
	c.c.Receive(ctx, &v)
	return v
}

// ReceiveAsync returns the next payload if one is waiting.
func (c SignalChannel[T]) ReceiveAsync() (T, bool) {
	var v T
	ok := c.c.ReceiveAsync(&v)
	return v, ok
}

// ReceiveBurst waits for the next payload, then takes every payload already
// waiting, handing each to fold; it tells whether any fold reported a
// change. A relay that publishes after each burst upserts once for reports
// that arrived together, not once per report.
func (c SignalChannel[T]) ReceiveBurst(ctx workflow.Context, fold func(T) bool) bool {
	changed := fold(c.Receive(ctx))
	for v, ok := c.ReceiveAsync(); ok; v, ok = c.ReceiveAsync() {
		changed = fold(v) || changed
	}
	return changed
}
