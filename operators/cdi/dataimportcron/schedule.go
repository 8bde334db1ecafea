package dataimportcron

import (
	"context"
	"errors"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// scheduleMemoKey holds the cron expression the schedule was made from, in
// the poll action's memo: Temporal keeps a schedule's spec compiled into
// calendars, so the expression itself is read back from there.
const scheduleMemoKey = "cronSchedule"

// pollAction starts one poll of the cron on the control task queue.
func (r *Reconciler) pollAction(cron *cdiv1.DataImportCron) *client.ScheduleWorkflowAction {
	in := cdi.PollCronInput{Namespace: cron.Namespace, Name: cron.Name, UID: string(cron.UID)}
	return &client.ScheduleWorkflowAction{
		ID: cdi.CronWorkflowID(string(cron.UID)), Workflow: cdi.PollCronWorkflowName, Args: []interface{}{in},
		TaskQueue: r.TaskQueue, Memo: map[string]interface{}{scheduleMemoKey: cron.Spec.Schedule},
	}
}

// scheduleSpec is the cron's spec.schedule; an empty one polls only when
// triggered, as upstream imports once and never again.
func scheduleSpec(cron *cdiv1.DataImportCron) client.ScheduleSpec {
	if cron.Spec.Schedule == "" {
		return client.ScheduleSpec{}
	}
	return client.ScheduleSpec{CronExpressions: []string{cron.Spec.Schedule}}
}

// ensureSchedule creates the cron's schedule, with one poll right away as
// upstream imports at creation, or brings its expression up to date. It
// returns the schedule's description, nil right after creating it.
func (r *Reconciler) ensureSchedule(ctx context.Context, cron *cdiv1.DataImportCron) (*client.ScheduleDescription, error) {
	id := cdi.CronScheduleID(string(cron.UID))
	h := r.Schedules.GetHandle(ctx, id)
	desc, err := h.Describe(ctx)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		_, err := r.Schedules.Create(ctx, client.ScheduleOptions{
			ID: id, Spec: scheduleSpec(cron), Action: r.pollAction(cron),
			Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP, TriggerImmediately: true,
		})
		if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
			return nil, fmt.Errorf("creating schedule %s for DataImportCron %s/%s: %w", id, cron.Namespace, cron.Name, err)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("describing schedule %s: %w", id, err)
	}
	if scheduledExpression(desc) == cron.Spec.Schedule {
		return desc, nil
	}
	err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		s := in.Description.Schedule
		spec := scheduleSpec(cron)
		s.Spec, s.Action = &spec, r.pollAction(cron)
		return &client.ScheduleUpdate{Schedule: &s}, nil
	}})
	if err != nil {
		return nil, fmt.Errorf("updating schedule %s to %q: %w", id, cron.Spec.Schedule, err)
	}
	return desc, nil
}

// scheduledExpression reads back the expression the schedule was made
// from; "" when unknown, which makes the schedule be rewritten.
func scheduledExpression(desc *client.ScheduleDescription) string {
	act, ok := desc.Schedule.Action.(*client.ScheduleWorkflowAction)
	if !ok {
		return ""
	}
	p, ok := act.Memo[scheduleMemoKey].(*commonpb.Payload)
	if !ok {
		return ""
	}
	var expr string
	if err := converter.GetDefaultDataConverter().FromPayload(p, &expr); err != nil {
		return ""
	}
	return expr
}

// deleteSchedule cancels the cron's running polls and removes its
// schedule, so nothing polls for a cron that is gone.
func (r *Reconciler) deleteSchedule(ctx context.Context, cron *cdiv1.DataImportCron) error {
	id := cdi.CronScheduleID(string(cron.UID))
	h := r.Schedules.GetHandle(ctx, id)
	desc, err := h.Describe(ctx)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("describing schedule %s: %w", id, err)
	}
	for _, run := range desc.Info.RunningWorkflows {
		if err := r.workflows().Cancel(ctx, run.WorkflowID); err != nil && !errors.As(err, &nf) {
			return fmt.Errorf("DataImportCron %s/%s: %w", cron.Namespace, cron.Name, err)
		}
	}
	if err := h.Delete(ctx); err != nil && !errors.As(err, &nf) {
		return fmt.Errorf("deleting schedule %s: %w", id, err)
	}
	return nil
}
