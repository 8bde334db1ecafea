package hco

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/virtflow/virtflow/contracts/registry"
)

// Activities are the HCO activities the workflows call by type name, on
// the control task queue.
type Activities interface {
	// PlanComponents returns the component CRs the HyperConverged should
	// own, in creation order.
	PlanComponents(ctx context.Context, hc HyperConvergedRef) ([]ComponentRef, error)
	// EnsureComponent creates the component CR or brings the fields the
	// HyperConverged manages back to their desired values.
	EnsureComponent(ctx context.Context, in EnsureComponentInput) error
	// WaitComponentAvailable returns once the component's operator reports
	// it Available.
	WaitComponentAvailable(ctx context.Context, ref ComponentRef) (ComponentStatus, error)
	// DeleteComponents deletes the component CRs; already-gone ones are fine.
	DeleteComponents(ctx context.Context, refs []ComponentRef) error
	// WaitComponentsGone returns once none of the component CRs exists.
	WaitComponentsGone(ctx context.Context, refs []ComponentRef) error
}

// RegisterActivities binds each activity type name to its implementation.
func RegisterActivities(r registry.Activities, a Activities) {
	r.RegisterActivityWithOptions(a.PlanComponents, activity.RegisterOptions{Name: PlanComponentsName})
	r.RegisterActivityWithOptions(a.EnsureComponent, activity.RegisterOptions{Name: EnsureComponentName})
	r.RegisterActivityWithOptions(a.WaitComponentAvailable, activity.RegisterOptions{Name: WaitComponentAvailableName})
	r.RegisterActivityWithOptions(a.DeleteComponents, activity.RegisterOptions{Name: DeleteComponentsName})
	r.RegisterActivityWithOptions(a.WaitComponentsGone, activity.RegisterOptions{Name: WaitComponentsGoneName})
}
