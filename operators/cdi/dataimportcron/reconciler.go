// Package dataimportcron is CDI's DataImportCron controller. Each cron is a
// Temporal schedule whose ticks run the cdi.PollDataImportCron workflow;
// the controller keeps the schedule in line with the cron, creates the
// managed DataSource, cleans up on deletion and computes the cron's status
// from its DataVolumes and DataSource.
package dataimportcron

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/cronimports"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Finalizer keeps a DataImportCron until its schedule is gone and, with
// retentionPolicy None, its imports.
const Finalizer = "cdi.kubevirt.io/dataImportCronFinalizer"

// Reconciler reconciles DataImportCrons.
type Reconciler struct {
	Client crclient.Client
	// Temporal describes and cancels the polls.
	Temporal workflowstate.Client
	// Schedules holds one schedule per cron.
	Schedules client.ScheduleClient
	// TaskQueue is where the polls run.
	TaskQueue string
	Recorder  record.EventRecorder
	// watcher wakes the reconciler when a poll it saw running moves on;
	// SetupWithManager starts it.
	watcher *workflowstate.Watcher
}

// Reconcile follows the workflow-backed lifecycle with a schedule in place
// of one workflow: get, deletion, finalizer, DataSource, schedule,
// observe, patch status once, wait. The schedule, not the reconciler,
// starts the polls, and there may be several, so the lifecycle's one
// stable workflow does not fit; the cron shares its finalizer, cancel and
// watch pieces.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cron := &cdiv1.DataImportCron{}
	if err := r.Client.Get(ctx, req.NamespacedName, cron); err != nil {
		return ctrl.Result{}, crclient.IgnoreNotFound(err)
	}
	if cron.DeletionTimestamp != nil {
		return ctrl.Result{}, r.finalize(ctx, cron)
	}
	if err := r.objects().Hold(ctx, cron); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensureDataSource(ctx, cron); err != nil {
		return ctrl.Result{}, err
	}
	desc, err := r.ensureSchedule(ctx, cron)
	if err != nil {
		r.Recorder.Eventf(cron, corev1.EventTypeWarning, "ScheduleError", "%v", err)
		return ctrl.Result{}, err
	}
	obs, err := r.observe(ctx, cron, desc)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.writeStatus(ctx, cron, Status(cron, obs, time.Now())); err != nil {
		return ctrl.Result{}, err
	}
	r.watchPolls(cron, desc)
	return ctrl.Result{RequeueAfter: workflowstate.Resync}, nil
}

func (r *Reconciler) objects() workflowreconcile.Objects {
	return workflowreconcile.Objects{Client: r.Client, Kind: "DataImportCron", Finalizer: Finalizer}
}

func (r *Reconciler) workflows() workflowreconcile.Workflows {
	return workflowreconcile.Workflows{Temporal: r.Temporal, Watcher: r.watcher, TaskQueue: r.TaskQueue}
}

// watchPolls has the watcher wake the cron on its running polls' events.
// A poll the schedule starts between reconciles announces itself by
// recording the poll on the cron.
func (r *Reconciler) watchPolls(cron *cdiv1.DataImportCron, desc *client.ScheduleDescription) {
	if desc == nil {
		return
	}
	for _, run := range desc.Info.RunningWorkflows {
		r.workflows().Watch(run.WorkflowID, 0, cron)
	}
}

// ensureDataSource creates the managed DataSource, empty until the first
// import, so consumers can reference it from the start.
func (r *Reconciler) ensureDataSource(ctx context.Context, cron *cdiv1.DataImportCron) error {
	ds := cronimports.DataSource(cron)
	err := r.Client.Get(ctx, crclient.ObjectKeyFromObject(ds), &cdiv1.DataSource{})
	if !apierrors.IsNotFound(err) {
		return crclient.IgnoreNotFound(err)
	}
	if err := r.Client.Create(ctx, ds); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating DataSource %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	r.Recorder.Eventf(cron, corev1.EventTypeNormal, "DataSourceCreated", "Created DataSource %s", ds.Name)
	return nil
}

// observe reads the cron's DataVolumes, its DataSource and its last poll.
func (r *Reconciler) observe(ctx context.Context, cron *cdiv1.DataImportCron, desc *client.ScheduleDescription) (Observed, error) {
	var obs Observed
	dvs, err := cronimports.List(ctx, r.Client, cron)
	if err != nil {
		return obs, err
	}
	cronimports.SortNewestFirst(dvs)
	obs.DataVolumes = dvs
	ds := &cdiv1.DataSource{}
	err = r.Client.Get(ctx, types.NamespacedName{Namespace: cron.Namespace, Name: cron.Spec.ManagedDataSource}, ds)
	if err == nil && ds.Labels[cdi.LabelDataImportCron] == cron.Name {
		obs.DataSource = ds
	} else if crclient.IgnoreNotFound(err) != nil {
		return obs, fmt.Errorf("reading DataSource %s/%s: %w", cron.Namespace, cron.Spec.ManagedDataSource, err)
	}
	obs.LastExecution = lastCronTime(cron)
	if desc == nil || len(desc.Info.RecentActions) == 0 {
		return obs, nil
	}
	last := desc.Info.RecentActions[len(desc.Info.RecentActions)-1]
	if obs.LastExecution == nil {
		// Polls recorded nothing on the cron before they recorded
		// themselves; the schedule knows when it started them.
		obs.LastExecution = &last.ActualTime
	}
	if last.StartWorkflowResult != nil {
		var progress cdi.CronProgress
		if obs.LastPoll, err = workflowstate.Describe(ctx, r.Temporal, last.StartWorkflowResult.WorkflowID, cdi.ProgressMemoKey, &progress); err != nil {
			return obs, err
		}
	}
	return obs, nil
}

// lastCronTime is when the last poll ran, as it recorded on the cron.
func lastCronTime(cron *cdiv1.DataImportCron) *time.Time {
	t, err := time.Parse(time.RFC3339, cron.Annotations[cdi.AnnLastCronTime])
	if err != nil {
		return nil
	}
	return &t
}

// finalize removes the schedule and, with retentionPolicy None, the cron's
// DataVolumes and its DataSource (upstream's default, All, keeps them),
// then lets the cron go.
func (r *Reconciler) finalize(ctx context.Context, cron *cdiv1.DataImportCron) error {
	if !r.objects().Holds(cron) {
		return nil
	}
	if err := r.deleteSchedule(ctx, cron); err != nil {
		return err
	}
	if p := cron.Spec.RetentionPolicy; p != nil && *p == cdiv1.DataImportCronRetainNone {
		if err := r.deleteImports(ctx, cron); err != nil {
			return err
		}
	}
	return r.objects().Release(ctx, cron)
}

// deleteImports deletes what the cron created, found by its label.
func (r *Reconciler) deleteImports(ctx context.Context, cron *cdiv1.DataImportCron) error {
	opts := []crclient.DeleteAllOfOption{crclient.InNamespace(cron.Namespace), crclient.MatchingLabels{cdi.LabelDataImportCron: cron.Name}}
	if err := r.Client.DeleteAllOf(ctx, &cdiv1.DataVolume{}, opts...); err != nil {
		return fmt.Errorf("deleting DataVolumes of DataImportCron %s/%s: %w", cron.Namespace, cron.Name, err)
	}
	if err := r.Client.DeleteAllOf(ctx, &cdiv1.DataSource{}, opts...); err != nil {
		return fmt.Errorf("deleting DataSource of DataImportCron %s/%s: %w", cron.Namespace, cron.Name, err)
	}
	return nil
}
