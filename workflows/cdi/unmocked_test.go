package cdi

import (
	"context"
	"errors"

	"github.com/virtflow/virtflow/contracts/cdi"
)

var errUnmocked = errors.New("activity called without a mock")

// unmocked gives the test environment every activity's signature; each
// test mocks the calls it expects.
type unmocked struct{}

func (unmocked) ImportDisk(context.Context, cdi.ImportRequest) (cdi.ImportResult, error) {
	return cdi.ImportResult{}, errUnmocked
}

func (unmocked) CleanupImport(context.Context, cdi.ImportRequest, bool) error { return errUnmocked }

func (unmocked) ReceiveUpload(context.Context, cdi.ImportRequest) (cdi.ImportResult, error) {
	return cdi.ImportResult{}, errUnmocked
}

func (unmocked) CloneDisk(context.Context, cdi.CloneRequest) (cdi.ImportResult, error) {
	return cdi.ImportResult{}, errUnmocked
}

func (unmocked) CheckSource(context.Context, cdi.CronRef) (cdi.SourceState, error) {
	return cdi.SourceState{}, errUnmocked
}

func (unmocked) RecordPoll(context.Context, cdi.PollRecord) error { return errUnmocked }

func (unmocked) EnsureImport(context.Context, cdi.ImportTarget) error { return errUnmocked }

func (unmocked) WaitImported(context.Context, cdi.ImportTarget) error { return errUnmocked }

func (unmocked) PointDataSource(context.Context, cdi.ImportTarget) error { return errUnmocked }

func (unmocked) GarbageCollect(context.Context, cdi.ImportTarget) ([]string, error) {
	return nil, errUnmocked
}
