package executeinvm

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// errWaitTimeout is upstream's message when a wait runs out of time.
var errWaitTimeout = errors.New("timed out waiting for the condition")

// vmTarget is the VM a run acts on, and what it learnt of its instance.
type vmTarget struct {
	namespace, name string
	// ip is the address of the instance's pod network interface.
	ip string
}

// vmLifecycle starts, waits for, stops and deletes one VM; it starts and
// stops at most once each, as upstream does, so a VM someone else stops
// meanwhile is not fought over.
type vmLifecycle struct {
	env     stepenv.Env
	control vmControl
	target  vmTarget
	timing  timing
	needsIP bool
	started bool
	stopped bool
	deleted bool
}

// poll calls check every interval until it is done or fails, reporting
// progress; the context's end is errWaitTimeout when its deadline passed.
func poll(ctx context.Context, env stepenv.Env, interval time.Duration, detail string, check func() (bool, error)) error {
	for {
		done, err := check()
		if err != nil || done {
			return err
		}
		env.Alive(detail)
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return errWaitTimeout
			}
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// ensureRunning starts the VM when it has no instance (or a failed one)
// and waits for the instance to run, and for its pod network address when
// the connection needs it.
func (l *vmLifecycle) ensureRunning(ctx context.Context) error {
	return poll(ctx, l.env, l.timing.vmi, "waiting for VMI "+l.target.name, func() (bool, error) {
		vmi := &kubevirtv1.VirtualMachineInstance{}
		err := l.env.Client.Get(ctx, types.NamespacedName{Namespace: l.target.namespace, Name: l.target.name}, vmi)
		if apierrors.IsNotFound(err) {
			return false, l.start(ctx)
		}
		if err != nil {
			return false, err
		}
		switch vmi.Status.Phase {
		case kubevirtv1.Failed:
			return false, l.start(ctx)
		case kubevirtv1.Running:
			return l.running(vmi)
		}
		return false, nil
	})
}

func (l *vmLifecycle) running(vmi *kubevirtv1.VirtualMachineInstance) (bool, error) {
	if !l.needsIP {
		return true, nil
	}
	ip, err := podNetworkIP(vmi)
	if err != nil {
		return false, fmt.Errorf("ip address not found: %v", err)
	}
	l.target.ip = ip
	return ip != "", nil
}

// podNetworkIP is the address of the interface on the pod network.
func podNetworkIP(vmi *kubevirtv1.VirtualMachineInstance) (string, error) {
	name := ""
	for _, n := range vmi.Spec.Networks {
		if n.Pod != nil {
			name = n.Name
			break
		}
	}
	if name == "" {
		return "", errors.New("pod network not found")
	}
	for _, iface := range vmi.Status.Interfaces {
		if iface.Name == name {
			return iface.IP, nil
		}
	}
	return "", nil
}

func (l *vmLifecycle) start(ctx context.Context) error {
	if l.started {
		return nil
	}
	l.started = true
	l.env.Logf("starting VM %s/%s", l.target.namespace, l.target.name)
	return l.control.Start(ctx, l.target.namespace, l.target.name)
}

// ensureStopped stops the VM and waits until its instance is gone or has
// finished; a stop virt-api refuses as a conflict (already stopping) is
// waited out.
func (l *vmLifecycle) ensureStopped(ctx context.Context) error {
	return poll(ctx, l.env, l.timing.cleanup, "stopping VM "+l.target.name, func() (bool, error) {
		vmi := &kubevirtv1.VirtualMachineInstance{}
		err := l.env.Client.Get(ctx, types.NamespacedName{Namespace: l.target.namespace, Name: l.target.name}, vmi)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if vmi.IsFinal() {
			return true, nil
		}
		if !l.stopped {
			l.stopped = true
			l.env.Logf("stopping VM %s/%s", l.target.namespace, l.target.name)
			if err := l.control.Stop(ctx, l.target.namespace, l.target.name); err != nil && !apierrors.IsConflict(err) {
				return false, err
			}
		}
		return false, nil
	})
}

// ensureDeleted deletes the VM and waits until it is gone.
func (l *vmLifecycle) ensureDeleted(ctx context.Context) error {
	return poll(ctx, l.env, l.timing.cleanup, "deleting VM "+l.target.name, func() (bool, error) {
		vm := &kubevirtv1.VirtualMachine{}
		err := l.env.Client.Get(ctx, types.NamespacedName{Namespace: l.target.namespace, Name: l.target.name}, vm)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if !l.deleted {
			l.deleted = true
			l.env.Logf("deleting VM %s/%s", l.target.namespace, l.target.name)
			if err := l.env.Client.Delete(ctx, vm); err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
		}
		return false, nil
	})
}
