package kubemacpool

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// VMController settles the pool against stored VirtualMachines: a stored VM
// commits the reservations its admission made, a VM that is gone frees its
// MACs. It needs no finalizer and never writes a VM: the pool only has to
// learn of a deletion, which the watch delivers.
type VMController struct {
	Client client.Reader
	Pool   *Pool
	// Rebuilt is set once the pool holds the existing VMs' MACs; until
	// then events wait, so a rebuild cannot undo what they settled.
	Rebuilt *atomic.Bool
}

// Reconcile commits or releases one VM's MACs.
func (c *VMController) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if c.Rebuilt != nil && !c.Rebuilt.Load() {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	owner := VMKey(&kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name}})
	vm := &kubevirtv1.VirtualMachine{}
	err := c.Client.Get(ctx, req.NamespacedName, vm)
	if apierrors.IsNotFound(err) {
		c.Pool.Release(owner)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading virtual machine %s: %w", owner, err)
	}
	stamp, ok := vm.Annotations[TransactionTimestampAnnotation]
	if !ok {
		return ctrl.Result{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		// A foreign value cannot be trusted; the reservations then heal
		// by expiry against the VM as stored.
		return ctrl.Result{}, nil
	}
	c.Pool.Commit(owner, at)
	return ctrl.Result{}, nil
}

// SetupWithManager watches VirtualMachines, deletions included.
func (c *VMController) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewControllerManagedBy(mgr).Named("kubemacpool-vm").For(&kubevirtv1.VirtualMachine{}).Complete(c); err != nil {
		return fmt.Errorf("setting up the kubemacpool virtual machine controller: %w", err)
	}
	return nil
}

// LookupVMs is the VMLookup of ExpireStale through r, which should be the
// API server itself: a cache that has not seen a VM just stored would free
// its MACs.
func LookupVMs(ctx context.Context, r client.Reader) VMLookup {
	return func(owner string) ([]string, bool, error) {
		ns, name, ok := splitOwner(owner)
		if !ok {
			return nil, false, fmt.Errorf("owner %s is not vm/<namespace>/<name>", owner)
		}
		vm := &kubevirtv1.VirtualMachine{}
		err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, vm)
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("reading virtual machine %s: %w", owner, err)
		}
		var macs []string
		for _, iface := range managedInterfaces(vm) {
			macs = append(macs, iface.MacAddress)
		}
		return macs, true, nil
	}
}

// splitOwner reads VMKey's "vm/<namespace>/<name>".
func splitOwner(owner string) (ns, name string, ok bool) {
	parts := strings.SplitN(owner, "/", 3)
	if len(parts) != 3 || parts[0] != "vm" || parts[1] == "" || parts[2] == "" {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// Expirer runs ExpireStale every Period until the manager stops, so a
// reservation whose VM never reached the API server is freed.
type Expirer struct {
	Pool   *Pool
	Reader client.Reader
	Period time.Duration
	// Rebuilt gates it like VMController: nothing expires before the
	// pool holds the existing VMs.
	Rebuilt *atomic.Bool
	// Log reports a failed round; the next round retries it.
	Log func(err error)
}

// Start ticks until ctx ends.
func (e *Expirer) Start(ctx context.Context) error {
	t := time.NewTicker(e.Period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			if e.Rebuilt != nil && !e.Rebuilt.Load() {
				continue
			}
			if _, err := e.Pool.ExpireStale(now, LookupVMs(ctx, e.Reader)); err != nil && e.Log != nil {
				e.Log(fmt.Errorf("expiring stale mac reservations: %w", err))
			}
		}
	}
}
