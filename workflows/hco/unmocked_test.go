package hco

import (
	"context"
	"errors"

	"github.com/virtflow/virtflow/contracts/hco"
)

var errUnmocked = errors.New("activity called without a mock")

// unmocked gives the test environment every activity's signature; each
// test mocks the calls it expects.
type unmocked struct{}

func (unmocked) PlanComponents(context.Context, hco.HyperConvergedRef) ([]hco.ComponentRef, error) {
	return nil, errUnmocked
}

func (unmocked) EnsureComponent(context.Context, hco.EnsureComponentInput) error { return errUnmocked }

func (unmocked) WaitComponentAvailable(context.Context, hco.ComponentRef) (hco.ComponentStatus, error) {
	return hco.ComponentStatus{}, errUnmocked
}

func (unmocked) DeleteComponents(context.Context, []hco.ComponentRef) error { return errUnmocked }

func (unmocked) WaitComponentsGone(context.Context, []hco.ComponentRef) error { return errUnmocked }
