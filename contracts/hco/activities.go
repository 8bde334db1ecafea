package hco

import (
	"context"

	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
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

// RegisterActivities binds each activity to its implementation, through
// the typed descriptors so that a signature that drifted from the
// workflows' calls does not compile.
func RegisterActivities(r registry.Activities, a Activities) {
	typed.RegisterActivities(r,
		PlanComponents.Bind(a.PlanComponents),
		EnsureComponent.Bind(a.EnsureComponent),
		WaitComponentAvailable.Bind(a.WaitComponentAvailable),
		DeleteComponents.Bind(a.DeleteComponents),
		WaitComponentsGone.Bind(a.WaitComponentsGone),
	)
}
