// Package rollout waits for workloads the way `kubectl rollout status`
// does: until their pods, by their own readiness probes, are Ready.
package rollout

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Deployment waits until the Deployment has observed its latest spec and
// all of its replicas are updated and Ready.
func Deployment(ctx context.Context, c client.Client, key client.ObjectKey, timeout time.Duration) error {
	d := &appsv1.Deployment{}
	return wait(ctx, c, key, timeout, "deployment", d, func() string { return DeploymentPending(d) })
}

// DaemonSet waits until the DaemonSet runs a current, Ready pod on every
// node it selects.
func DaemonSet(ctx context.Context, c client.Client, key client.ObjectKey, timeout time.Duration) error {
	ds := &appsv1.DaemonSet{}
	return wait(ctx, c, key, timeout, "daemonset", ds, func() string { return DaemonSetPending(ds) })
}

// wait polls obj until pending, read after each Get, says nothing is.
func wait(ctx context.Context, c client.Client, key client.ObjectKey, timeout time.Duration,
	kind string, obj client.Object, pending func() string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	why := "not found"
	for {
		if err := c.Get(ctx, key, obj); err == nil {
			why = pending()
			if why == "" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %s is not ready (%s): %w", kind, key, why, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// DeploymentPending is empty for a Deployment that is rolled out, else why
// not.
func DeploymentPending(d *appsv1.Deployment) string {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	switch {
	case d.Status.ObservedGeneration < d.Generation:
		return "spec not observed yet"
	case d.Status.UpdatedReplicas < want:
		return fmt.Sprintf("%d of %d replicas updated", d.Status.UpdatedReplicas, want)
	case d.Status.ReadyReplicas < want:
		return fmt.Sprintf("%d of %d replicas ready", d.Status.ReadyReplicas, want)
	}
	return ""
}

// DaemonSetPending is empty for a DaemonSet that runs a current, Ready pod
// on every node it selects, and selects at least one; else why not.
func DaemonSetPending(ds *appsv1.DaemonSet) string {
	s := ds.Status
	switch {
	case s.ObservedGeneration < ds.Generation:
		return "spec not observed yet"
	case s.UpdatedNumberScheduled < s.DesiredNumberScheduled:
		return fmt.Sprintf("%d of %d pods updated", s.UpdatedNumberScheduled, s.DesiredNumberScheduled)
	case s.DesiredNumberScheduled == 0:
		return "no node to run on"
	case s.NumberReady < s.DesiredNumberScheduled:
		return fmt.Sprintf("%d of %d pods ready", s.NumberReady, s.DesiredNumberScheduled)
	}
	return ""
}
