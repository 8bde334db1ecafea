package waitforvmistatus

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// waiter waits for one VMI. It watches the VMI so that it sees every state
// the VMI passes through, as upstream's informer does, and also looks at
// it every pollInterval, which covers a watch that ended or could not
// start (then it only polls).
type waiter struct {
	env     stepenv.Env
	o       *options
	watcher crclient.WithWatch // nil: poll only
	current watch.Interface
	detail  string
}

func newWaiter(env stepenv.Env, o *options) *waiter {
	return &waiter{
		env: env, o: o, watcher: watcherOf(env),
		detail: fmt.Sprintf("waiting for VMI %s/%s", o.namespace, o.name),
	}
}

// watcherOf is a client that can watch: env's own when it can, else one
// from env's configuration, else nil.
func watcherOf(env stepenv.Env) crclient.WithWatch {
	if w, ok := env.Client.(crclient.WithWatch); ok {
		return w
	}
	if env.Config == nil {
		return nil
	}
	w, err := crclient.NewWithWatch(env.Config, crclient.Options{Scheme: env.Client.Scheme(), Mapper: env.Client.RESTMapper()})
	if err != nil {
		env.Logf("cannot watch VMIs, polling instead: %v", err)
		return nil
	}
	return w
}

// wait returns nil once the VMI fulfils the success condition and an
// error once it fulfils the failure condition or ctx ends.
func (w *waiter) wait(ctx context.Context) error {
	defer w.stopWatch()
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		// The watch starts before the look so no change falls between.
		w.startWatch(ctx)
		w.env.Alive(w.detail)
		if done, err := w.look(ctx); done || err != nil {
			return err
		}
		if done, err := w.follow(ctx, ticker.C); done || err != nil {
			return err
		}
	}
}

// look gets the VMI and evaluates it; a VMI not there (yet) is waited for.
func (w *waiter) look(ctx context.Context) (bool, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	err := w.env.Client.Get(ctx, crclient.ObjectKey{Namespace: w.o.namespace, Name: w.o.name}, vmi)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return true, ctx.Err()
		}
		// A failing read is retried, as upstream's informer retries.
		w.env.Logf("getting VMI %s/%s: %v", w.o.namespace, w.o.name, err)
		return false, nil
	}
	return w.evaluate(vmi)
}

// follow evaluates the VMI on every watch event until the next tick or
// ctx's end.
func (w *waiter) follow(ctx context.Context, tick <-chan time.Time) (bool, error) {
	var events <-chan watch.Event
	if w.current != nil {
		events = w.current.ResultChan()
	}
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-tick:
			return false, nil
		case ev, ok := <-events:
			if !ok || ev.Type == watch.Error {
				// Polled until the tick, then watched anew.
				w.stopWatch()
				events = nil
				continue
			}
			vmi, isVMI := ev.Object.(*kubevirtv1.VirtualMachineInstance)
			if !isVMI || vmi.Name != w.o.name {
				continue
			}
			// A deleted VMI is evaluated in its last state, as upstream.
			if done, err := w.evaluate(vmi); done || err != nil {
				return done, err
			}
		}
	}
}

// evaluate checks the success condition first, then the failure one.
func (w *waiter) evaluate(vmi *kubevirtv1.VirtualMachineInstance) (bool, error) {
	if w.o.success.fulfilledBy(vmi) {
		w.env.Logf("VMI %s/%s fulfilled the success condition %q", vmi.Namespace, vmi.Name, w.o.success.text)
		return true, nil
	}
	if w.o.failure.fulfilledBy(vmi) {
		return true, &FailureConditionError{Namespace: vmi.Namespace, Name: vmi.Name, Condition: w.o.failure.text, Phase: string(vmi.Status.Phase)}
	}
	return false, nil
}

func (w *waiter) startWatch(ctx context.Context) {
	if w.watcher == nil || w.current != nil {
		return
	}
	wi, err := w.watcher.Watch(ctx, &kubevirtv1.VirtualMachineInstanceList{}, crclient.InNamespace(w.o.namespace),
		crclient.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", w.o.name)})
	if err != nil {
		w.env.Logf("watching VMI %s/%s, polling meanwhile: %v", w.o.namespace, w.o.name, err)
		return
	}
	w.current = wi
}

func (w *waiter) stopWatch() {
	if w.current != nil {
		w.current.Stop()
		w.current = nil
	}
}
