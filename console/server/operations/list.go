package operations

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
)

// progressMemoKey is the memo field every virtflow workflow publishes its
// progress in (contracts/cdi, hco and ssp all name it so).
const progressMemoKey = "progress"

// Scan limits: the visibility store is read newest first, a page at a
// time, and at most maxScan executions are looked at per list.
const (
	pageSize     = 100
	maxScan      = 500
	defaultLimit = 100
)

// Service lists and cancels operations as a user.
type Service struct {
	// Temporal reaches the server the workflows run on.
	Temporal Temporal
	// Namespace is the Temporal namespace the workflows run in.
	Namespace string
	// UI is the Temporal Web UI's base URL; links are left out when empty.
	UI string
	// Access answers access reviews as the user.
	Access Authorizer
	// PollInterval is how often a stream looks again (default 2s).
	PollInterval time.Duration
	// Done ends every open stream, when the server shuts down.
	Done <-chan struct{}
	// Log receives what the user is not told.
	Log *slog.Logger

	inputs inputs
}

// Operation is one workflow execution as the console shows it.
type Operation struct {
	ID        string     `json:"id"`
	RunID     string     `json:"runId"`
	Type      string     `json:"type"`
	Status    string     `json:"status"`
	StartTime time.Time  `json:"startTime"`
	CloseTime *time.Time `json:"closeTime,omitempty"`
	// Progress is the workflow's progress memo as it published it.
	Progress json.RawMessage `json:"progress,omitempty"`
	// Owner is null when the console cannot tell it.
	Owner *Owner `json:"owner"`
	// TemporalUI links to the execution in Temporal's Web UI.
	TemporalUI string `json:"temporalUI,omitempty"`
	// Cancellable: running, and the user may delete the owner.
	Cancellable bool `json:"cancellable"`
}

// Filter narrows a list to one owner kind, namespace or name.
type Filter struct {
	Namespace, Kind, Name string
	// Limit is the most operations returned (default 100).
	Limit int
}

func (f Filter) matches(o *Owner) bool {
	if f.Kind == "" && f.Namespace == "" && f.Name == "" {
		return true
	}
	return o != nil && (f.Kind == "" || f.Kind == o.Kind) &&
		(f.Namespace == "" || f.Namespace == o.Namespace) && (f.Name == "" || f.Name == o.Name)
}

// candidate is an execution with its owner, before access is decided.
type candidate struct {
	info  *workflowpb.WorkflowExecutionInfo
	owner *Owner
}

// List returns the operations the token's owner may see, newest first.
func (s *Service) List(ctx context.Context, token string, f Filter) ([]Operation, error) {
	query, ok := queryFor(f.Kind)
	if !ok {
		return []Operation{}, nil // no operation belongs to that kind
	}
	cands, err := s.scan(ctx, query, f)
	if err != nil {
		return nil, err
	}
	owners := make([]*Owner, len(cands))
	for i, c := range cands {
		owners[i] = c.owner
	}
	visible, err := permitted(ctx, s.Access, token, "get", owners)
	if err != nil {
		return nil, err
	}
	deletable, err := permitted(ctx, s.Access, token, "delete", owners)
	if err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	out := []Operation{}
	for i, c := range cands {
		if visible[i] && len(out) < limit {
			out = append(out, s.operation(c, deletable[i]))
		}
	}
	return out, nil
}

// queryFor is the visibility query for a kind's workflow types; false for
// a kind no workflow belongs to.
func queryFor(kind string) (string, bool) {
	if kind == "" {
		return "", true
	}
	types := typesOf(kind)
	if len(types) == 0 {
		return "", false
	}
	return "WorkflowType IN ('" + strings.Join(types, "', '") + "')", true
}

// scan reads the visibility store and each execution's owner, keeping
// those the filter matches.
func (s *Service) scan(ctx context.Context, query string, f Filter) ([]candidate, error) {
	var out []candidate
	var token []byte
	for scanned := 0; scanned < maxScan; {
		resp, err := s.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: s.Namespace, PageSize: pageSize, NextPageToken: token, Query: query,
		})
		if err != nil {
			return nil, fmt.Errorf("listing workflows: %w", err)
		}
		for _, info := range resp.GetExecutions() {
			scanned++
			owner, err := s.owner(ctx, info)
			if err != nil {
				return nil, err
			}
			if f.matches(owner) {
				out = append(out, candidate{info: info, owner: owner})
			}
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	return out, nil
}

// owner reads an execution's owner from its input; an input that does not
// decode leaves the owner unknown (administrators only) rather than
// failing the whole list.
func (s *Service) owner(ctx context.Context, info *workflowpb.WorkflowExecutionInfo) (*Owner, error) {
	id, run := info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId()
	input, err := s.inputs.input(ctx, s.Temporal, id, run)
	if err != nil {
		return nil, err
	}
	owner, err := ownerOf(info.GetType().GetName(), input)
	if err != nil && s.Log != nil {
		s.Log.Warn("operation's owner unknown", "workflow", id, "error", err)
	}
	return owner, nil
}

func (s *Service) operation(c candidate, deletable bool) Operation {
	info := c.info
	op := Operation{
		ID: info.GetExecution().GetWorkflowId(), RunID: info.GetExecution().GetRunId(), Type: info.GetType().GetName(),
		Status: statusName(info.GetStatus()), StartTime: info.GetStartTime().AsTime(), Owner: c.owner,
	}
	if info.GetCloseTime() != nil {
		t := info.GetCloseTime().AsTime()
		op.CloseTime = &t
	}
	op.Cancellable = deletable && op.Status == "Running"
	if p := info.GetMemo().GetFields()[progressMemoKey]; p != nil {
		var raw json.RawMessage
		if err := converter.GetDefaultDataConverter().FromPayload(p, &raw); err == nil {
			op.Progress = raw
		}
	}
	op.TemporalUI = s.link(op.ID, op.RunID)
	return op
}

// link is the run's history in Temporal's Web UI: the run, not the ID's
// latest, since an ID reused by a later run (a reinstall) is another
// operation.
func (s *Service) link(id, run string) string {
	if s.UI == "" {
		return ""
	}
	return fmt.Sprintf("%s/namespaces/%s/workflows/%s/%s/history",
		strings.TrimRight(s.UI, "/"), url.PathEscape(s.Namespace), url.PathEscape(id), url.PathEscape(run))
}
