package ssptasks

import (
	"context"
	"errors"
	"io"

	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// classify turns a task's failure into the activity's: a cancellation as
// it is, a failure to reach or be served by the API server as a retryable
// error, anything else as the task's final failure in its own words.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if transient(err) {
		return err
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), ssp.ErrTypeTaskFailed, nil)
}

// transient tells the failures that another attempt may not meet: the
// API server overloaded, restarting or unreachable, or an update that
// raced another writer.
func transient(err error) bool {
	switch {
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err), apierrors.IsTooManyRequests(err),
		apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err), apierrors.IsConflict(err):
		return true
	case utilnet.IsConnectionRefused(err), utilnet.IsConnectionReset(err), utilnet.IsProbableEOF(err),
		errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	return false
}
