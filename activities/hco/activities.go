// Package hco holds the side effects of installing and uninstalling a
// HyperConverged: applying each component CR the HyperConverged derives,
// waiting for its operator to report it Available, and deleting them.
package hco

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/kube/apply"
	"github.com/virtflow/virtflow/operands"
)

// Activities install HyperConverged components through the Kubernetes API.
type Activities struct {
	// Client talks to the kube-apiserver; it must know every component kind.
	Client client.Client
	// PollInterval is how often the waits re-read the components.
	PollInterval time.Duration
}

var _ hco.Activities = (*Activities)(nil)

// PlanComponents returns the component CRs the HyperConverged should own, in
// creation order.
func (a *Activities) PlanComponents(ctx context.Context, ref hco.HyperConvergedRef) ([]hco.ComponentRef, error) {
	hc, err := a.getHyperConverged(ctx, ref)
	if err != nil {
		return nil, err
	}
	return operands.Refs(hc), nil
}

// EnsureComponent creates the component CR or brings the fields the
// HyperConverged manages back to their desired values. Calling it twice
// leaves one object.
func (a *Activities) EnsureComponent(ctx context.Context, in hco.EnsureComponentInput) error {
	hc, err := a.getHyperConverged(ctx, in.HyperConverged)
	if err != nil {
		return err
	}
	objs, err := operands.Patched(hc)
	if err != nil {
		// Retried: the HyperConverged's webhook refuses a bad patch, so it
		// predates the webhook and its owner can fix it.
		return fmt.Errorf("HyperConverged %s/%s: %w", hc.Namespace, hc.Name, err)
	}
	for _, obj := range objs {
		if operands.RefOf(obj) == in.Component {
			_, err := apply.Managed(ctx, a.Client, obj)
			return err
		}
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("%s %s is no longer part of HyperConverged %s/%s", in.Component.Kind, in.Component.Name, hc.Namespace, hc.Name),
		hco.ErrHyperConvergedGone, nil)
}

// WaitComponentAvailable polls the component CR until its operator reports
// Available=True, heartbeating the last status seen.
func (a *Activities) WaitComponentAvailable(ctx context.Context, ref hco.ComponentRef) (hco.ComponentStatus, error) {
	for {
		st, err := operands.ReadStatus(ctx, a.Client, ref)
		if err != nil && !apierrors.IsNotFound(err) {
			return st, err
		}
		if st.Available {
			return st, nil
		}
		activity.RecordHeartbeat(ctx, st)
		if err := a.sleep(ctx); err != nil {
			return st, fmt.Errorf("%s %s not available (%s): %w", ref.Kind, ref.Name, st.Message, err)
		}
	}
}

// DeleteComponents removes the component CRs; already-gone ones are fine.
func (a *Activities) DeleteComponents(ctx context.Context, refs []hco.ComponentRef) error {
	for _, ref := range refs {
		if err := a.Client.Delete(ctx, operands.Object(ref)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s %s: %w", ref.Kind, ref.Name, err)
		}
	}
	return nil
}

// WaitComponentsGone polls until none of the component CRs exists: their
// operators remove what they deployed before letting them go. It
// heartbeats the ones still there.
func (a *Activities) WaitComponentsGone(ctx context.Context, refs []hco.ComponentRef) error {
	for {
		var remaining []hco.ComponentRef
		for _, ref := range refs {
			err := a.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, operands.Object(ref))
			if err == nil {
				remaining = append(remaining, ref)
			} else if !apierrors.IsNotFound(err) {
				return fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err)
			}
		}
		if len(remaining) == 0 {
			return nil
		}
		activity.RecordHeartbeat(ctx, remaining)
		if err := a.sleep(ctx); err != nil {
			return fmt.Errorf("%s %s is still there: %w", remaining[0].Kind, remaining[0].Name, err)
		}
	}
}

func (a *Activities) sleep(ctx context.Context) error {
	interval := a.PollInterval
	if interval == 0 {
		interval = time.Second
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(interval):
		return nil
	}
}

func (a *Activities) getHyperConverged(ctx context.Context, ref hco.HyperConvergedRef) (*hcov1beta1.HyperConverged, error) {
	hc := &hcov1beta1.HyperConverged{}
	err := a.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, hc)
	if apierrors.IsNotFound(err) || (err == nil && string(hc.UID) != ref.UID) {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("HyperConverged %s/%s (uid %s) no longer exists", ref.Namespace, ref.Name, ref.UID), hco.ErrHyperConvergedGone, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading HyperConverged %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if hc.DeletionTimestamp != nil {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("HyperConverged %s/%s is being deleted", ref.Namespace, ref.Name), hco.ErrHyperConvergedGone, nil)
	}
	return hc, nil
}
