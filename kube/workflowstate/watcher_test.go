package workflowstate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// fakeHistory hands out events as the test appends them, the way a long
// poll returns each new event; closing it ends the history.
type fakeHistory struct {
	events chan *historypb.HistoryEvent
	polls  chan string
}

func (f *fakeHistory) GetWorkflowHistory(_ context.Context, id, _ string, longPoll bool, _ enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	if !longPoll {
		panic("the watcher must long-poll")
	}
	f.polls <- id
	return &fakeIterator{events: f.events}
}

type fakeIterator struct {
	events chan *historypb.HistoryEvent
	next   *historypb.HistoryEvent
}

func (i *fakeIterator) HasNext() bool {
	ev, ok := <-i.events
	i.next = ev
	return ok
}

func (i *fakeIterator) Next() (*historypb.HistoryEvent, error) {
	if i.next == nil {
		return nil, errors.New("no event")
	}
	return i.next, nil
}

func TestWatcherEnqueuesForNewEventsAndTheCloseThenStops(t *testing.T) {
	h := &fakeHistory{events: make(chan *historypb.HistoryEvent), polls: make(chan string, 4)}
	w := NewWatcher(h)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer queue.ShutDown()
	require.NoError(t, w.Source().Start(ctx, queue))
	go func() { _ = w.Start(ctx) }()

	obj := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "dv"}}
	w.Watch("cdi-import-1", 5, obj)
	w.Watch("cdi-import-1", 5, obj)
	require.Equal(t, "cdi-import-1", <-h.polls)

	h.events <- &historypb.HistoryEvent{EventId: 4}
	h.events <- &historypb.HistoryEvent{EventId: 5}
	select {
	case <-h.polls:
		t.Fatal("a second Watch of the same execution polled again")
	case <-time.After(50 * time.Millisecond):
	}
	require.Zero(t, queue.Len(), "events the reconciler already saw wake nothing")

	h.events <- &historypb.HistoryEvent{EventId: 6}
	require.Eventually(t, func() bool { return queue.Len() == 1 }, time.Second, time.Millisecond)
	item, _ := queue.Get()
	require.Equal(t, "ns/dv", item.String())
	queue.Done(item)

	close(h.events)
	require.Eventually(t, func() bool { return queue.Len() == 1 }, time.Second, time.Millisecond, "the close wakes it")
	require.Eventually(t, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return !w.watching["cdi-import-1"]
	}, time.Second, time.Millisecond, "a closed execution is no longer watched")
}
