package workflowstate

import (
	"context"
	"fmt"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Watcher wakes a reconciler when a workflow it started makes progress or
// ends, instead of the reconciler polling Temporal: for each watched
// execution it long-polls the history (the server answers as soon as an
// event is appended) and enqueues the owning object for every new event,
// the last one being the close (completed, failed, cancelled, terminated
// or timed out). The workqueue folds a burst of events into one reconcile.
//
// Reconcilers call Watch whenever they see an execution running; it is
// idempotent, so an operator that restarts re-arms its watches on the
// first reconcile of each object.
type Watcher struct {
	client HistoryClient
	events chan event.GenericEvent

	mu       sync.Mutex
	ctx      context.Context
	watching map[string]bool
	pending  []watch
}

type watch struct {
	id    string
	after int64
	obj   client.Object
}

// NewWatcher watches executions through c.
func NewWatcher(c HistoryClient) *Watcher {
	return &Watcher{client: c, events: make(chan event.GenericEvent, 64), watching: map[string]bool{}}
}

// Source feeds the watched objects' reconcile requests to a controller
// (builder.WatchesRawSource).
func (w *Watcher) Source() source.Source {
	return source.Channel(w.events, &handler.EnqueueRequestForObject{})
}

// Start runs the watches until ctx ends; the manager calls it.
func (w *Watcher) Start(ctx context.Context) error {
	w.mu.Lock()
	w.ctx = ctx
	pending := w.pending
	w.pending = nil
	w.mu.Unlock()
	for _, p := range pending {
		go w.follow(ctx, p)
	}
	<-ctx.Done()
	return nil
}

// Watch enqueues obj for every event appended to the execution's history
// after event ID after (the history length the reconciler last saw), until
// it closes.
func (w *Watcher) Watch(id string, after int64, obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watching[id] {
		return
	}
	w.watching[id] = true
	p := watch{id: id, after: after, obj: obj.DeepCopyObject().(client.Object)}
	if w.ctx == nil {
		w.pending = append(w.pending, p)
		return
	}
	go w.follow(w.ctx, p)
}

// follow long-polls one history. However it ends (closed, an error, the
// operator stopping), the object is enqueued once more, and a reconcile
// that still sees the execution running watches it again.
func (w *Watcher) follow(ctx context.Context, p watch) {
	defer func() {
		w.mu.Lock()
		delete(w.watching, p.id)
		w.mu.Unlock()
		w.notify(ctx, p.obj)
	}()
	it := w.client.GetWorkflowHistory(ctx, p.id, "", true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return
		}
		if ev.GetEventId() > p.after {
			w.notify(ctx, p.obj)
		}
	}
}

func (w *Watcher) notify(ctx context.Context, obj client.Object) {
	select {
	case w.events <- event.GenericEvent{Object: obj}:
	case <-ctx.Done():
	}
}

// Into runs the watcher with the manager and feeds its wake-ups to the
// controller being built.
func (w *Watcher) Into(mgr manager.Manager, b *builder.Builder) (*builder.Builder, error) {
	if err := mgr.Add(w); err != nil {
		return nil, fmt.Errorf("adding the workflow watcher: %w", err)
	}
	return b.WatchesRawSource(w.Source()), nil
}
