package operations

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
)

// Why a cancel is refused.
var (
	// ErrNotFound: no such operation, or one the user may not see.
	ErrNotFound = errors.New("no such operation")
	// ErrNotRunning: the operation has already ended.
	ErrNotRunning = errors.New("the operation is not running")
	// ErrForbidden: the user may not delete the operation's owner.
	ErrForbidden = errors.New("forbidden")
)

// Cancel requests cancellation of the operation with the ID, as the
// token's owner: allowed when they may delete the object it works for,
// since deleting that object cancels it anyway.
func (s *Service) Cancel(ctx context.Context, token, id string) error {
	resp, err := s.Temporal.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("operation %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("describing workflow %s: %w", id, err)
	}
	info := resp.GetWorkflowExecutionInfo()
	owner, err := s.owner(ctx, info)
	if err != nil {
		return err
	}
	owners := []*Owner{owner}
	if ok, err := permitted(ctx, s.Access, token, "get", owners); err != nil {
		return err
	} else if !ok[0] {
		return fmt.Errorf("operation %s: %w", id, ErrNotFound) // do not tell what exists
	}
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return fmt.Errorf("operation %s is %s: %w", id, statusName(info.GetStatus()), ErrNotRunning)
	}
	if ok, err := permitted(ctx, s.Access, token, "delete", owners); err != nil {
		return err
	} else if !ok[0] {
		return fmt.Errorf("cancelling operation %s needs permission to delete %s: %w", id, describe(owner), ErrForbidden)
	}
	if err := s.Temporal.CancelWorkflow(ctx, id, info.GetExecution().GetRunId()); err != nil {
		return fmt.Errorf("cancelling workflow %s: %w", id, err)
	}
	return nil
}

// describe names the owner for a person.
func describe(o *Owner) string {
	switch {
	case o == nil:
		return "everything (only cluster administrators may cancel an operation the console cannot attribute)"
	case o.Name == "":
		return fmt.Sprintf("%s objects in namespace %s", o.Kind, o.Namespace)
	case o.Namespace == "":
		return fmt.Sprintf("%s %s", o.Kind, o.Name)
	}
	return fmt.Sprintf("%s %s/%s", o.Kind, o.Namespace, o.Name)
}
