package ssp

import (
	"context"
	"errors"

	"github.com/virtflow/virtflow/contracts/ssp"
)

var errUnmocked = errors.New("activity called without a mock")

// unmocked gives the test environment the activity's signature; each test
// mocks the calls it expects.
type unmocked struct{}

func (unmocked) RunTaskStep(context.Context, ssp.TaskRequest) (ssp.TaskResult, error) {
	return ssp.TaskResult{}, errUnmocked
}
