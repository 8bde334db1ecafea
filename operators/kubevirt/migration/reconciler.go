// Package migration is virt-controller's VirtualMachineInstanceMigration
// controller: each VMIM is one migration workflow (contracts/virt), which
// the controller starts, mirrors into the VMIM's phase, and cancels when
// the VMIM is deleted. Deciding, copying and handing over are the
// workflow's steps; the controller writes only the VMIM's status.
package migration

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Reconciler reconciles VirtualMachineInstanceMigrations.
type Reconciler struct {
	Client    crclient.Client
	Temporal  workflowstate.Client
	TaskQueue string
	Recorder  record.EventRecorder
	watcher   *workflowstate.Watcher
}

// Reconcile runs the workflow-backed lifecycle of one VMIM.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.lifecycle().Reconcile(ctx, req)
}

// migrating is what one reconcile gathers: the workflow's progress memo,
// and the VMI when it was read.
type migrating struct {
	progress virt.Progress
	vmi      *kubevirtv1.VirtualMachineInstance
}

func (r *Reconciler) lifecycle() workflowreconcile.Lifecycle[*kubevirtv1.VirtualMachineInstanceMigration, migrating] {
	return workflowreconcile.Lifecycle[*kubevirtv1.VirtualMachineInstanceMigration, migrating]{
		Objects: workflowreconcile.Objects{Client: r.Client, Kind: "VirtualMachineInstanceMigration",
			Finalizer: kubevirtv1.VirtualMachineInstanceMigrationFinalizer},
		Workflows: workflowreconcile.Workflows{Temporal: r.Temporal, Watcher: r.watcher, TaskQueue: r.TaskQueue},
		New: func() *kubevirtv1.VirtualMachineInstanceMigration {
			return &kubevirtv1.VirtualMachineInstanceMigration{}
		},
		WorkflowID: func(m *kubevirtv1.VirtualMachineInstanceMigration) string {
			return virt.MigrateWorkflowID(string(m.UID))
		},
		MemoKey:  virt.ProgressMemoKey,
		Progress: func(v *migrating) any { return &v.progress },
		Start:    r.start,
		Report:   r.report,
	}
}

// start is the migration's workflow, for the VMI of that name as it is
// now; a VMIM already final (its workflow gone from Temporal's retention)
// starts nothing again.
func (r *Reconciler) start(ctx context.Context, m *kubevirtv1.VirtualMachineInstanceMigration, v *migrating) (*workflowreconcile.Workflow, error) {
	if m.IsFinal() {
		return nil, nil
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	err := r.Client.Get(ctx, crclient.ObjectKey{Namespace: m.Namespace, Name: m.Spec.VMIName}, vmi)
	if apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("reading VirtualMachineInstance %s: %w", m.Spec.VMIName, err)
	}
	v.vmi = vmi
	in := virt.MigrateInput{
		Migration: virt.Ref{Namespace: m.Namespace, Name: m.Name, UID: string(m.UID)},
		VMI:       virt.Ref{Namespace: vmi.Namespace, Name: vmi.Name, UID: string(vmi.UID)},
	}
	return &workflowreconcile.Workflow{Type: virt.MigrateWorkflowName, Input: in}, nil
}

// report mirrors the workflow's phase into the VMIM's: the phase its memo
// publishes while it runs and when it ended, Failed when it failed,
// was cancelled or never started for want of a VMI.
func (r *Reconciler) report(ctx context.Context, m *kubevirtv1.VirtualMachineInstanceMigration, v *migrating, run workflowreconcile.Run) (ctrl.Result, error) {
	if run.Started {
		r.Recorder.Eventf(m, "Normal", "SuccessfulCreate", "Started migration workflow %s", run.ID)
	}
	before := m.Status.DeepCopy()
	phase, final := phaseOf(run, v.progress)
	if m.IsFinal() {
		// A final phase stays, whatever Temporal still remembers.
		phase = m.Status.Phase
	} else {
		for _, tr := range v.progress.Transitions {
			enter(m, kubevirtv1.VirtualMachineInstanceMigrationPhase(tr.Phase), metav1.NewTime(tr.At))
		}
	}
	setPhase(m, phase)
	if final && !m.IsFinal() {
		setPhase(m, kubevirtv1.MigrationFailed)
	}
	if err := r.copyState(ctx, m, v); err != nil {
		return ctrl.Result{}, err
	}
	if equality.Semantic.DeepEqual(before, &m.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Update(ctx, m); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating VirtualMachineInstanceMigration %s status: %w", m.Name, err)
	}
	r.announce(m, before.Phase)
	return ctrl.Result{}, nil
}

// copyState shows on the VMIM the VMI's record of this migration (source,
// target, times, failure reason), as upstream's status.migrationState.
func (r *Reconciler) copyState(ctx context.Context, m *kubevirtv1.VirtualMachineInstanceMigration, v *migrating) error {
	if v.vmi == nil {
		vmi := &kubevirtv1.VirtualMachineInstance{}
		err := r.Client.Get(ctx, crclient.ObjectKey{Namespace: m.Namespace, Name: m.Spec.VMIName}, vmi)
		if apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading VirtualMachineInstance %s: %w", m.Spec.VMIName, err)
		}
		v.vmi = vmi
	}
	if st := v.vmi.Status.MigrationState; st != nil && st.MigrationUID == m.UID {
		m.Status.MigrationState = st.DeepCopy()
	}
	return nil
}

// phaseOf is the VMIM phase a run stands for; final says the run is over.
func phaseOf(run workflowreconcile.Run, p virt.Progress) (kubevirtv1.VirtualMachineInstanceMigrationPhase, bool) {
	phase := kubevirtv1.VirtualMachineInstanceMigrationPhase(p.Phase)
	switch run.Phase {
	case workflowstate.Running:
		if phase == "" {
			phase = kubevirtv1.MigrationPending
		}
		return phase, false
	case workflowstate.Succeeded:
		if phase == kubevirtv1.MigrationSucceeded || phase == kubevirtv1.MigrationFailed {
			return phase, true
		}
	}
	return kubevirtv1.MigrationFailed, true
}

// setPhase records a new phase, beginning now.
func setPhase(m *kubevirtv1.VirtualMachineInstanceMigration, phase kubevirtv1.VirtualMachineInstanceMigrationPhase) {
	if phase != "" && m.Status.Phase != phase {
		enter(m, phase, metav1.Now())
	}
}

// enter records a phase the migration entered at, once, as upstream's
// phaseTransitionTimestamps: the workflow publishes each phase with its
// time, so one the controller did not see still shows.
func enter(m *kubevirtv1.VirtualMachineInstanceMigration, phase kubevirtv1.VirtualMachineInstanceMigrationPhase, at metav1.Time) {
	for _, t := range m.Status.PhaseTransitionTimestamps {
		if t.Phase == phase {
			return
		}
	}
	m.Status.Phase = phase
	m.Status.PhaseTransitionTimestamps = append(m.Status.PhaseTransitionTimestamps,
		kubevirtv1.VirtualMachineInstanceMigrationPhaseTransitionTimestamp{Phase: phase, PhaseTransitionTimestamp: at})
}

// announce records the migration's end on the VMIM, with upstream's
// reasons.
func (r *Reconciler) announce(m *kubevirtv1.VirtualMachineInstanceMigration, was kubevirtv1.VirtualMachineInstanceMigrationPhase) {
	if was == m.Status.Phase {
		return
	}
	st := m.Status.MigrationState
	switch {
	case m.Status.Phase == kubevirtv1.MigrationSucceeded && st != nil:
		r.Recorder.Eventf(m, "Normal", "SuccessfulMigration", "VirtualMachineInstance %s migrated to node %s", m.Spec.VMIName, st.TargetNode)
	case m.Status.Phase == kubevirtv1.MigrationFailed && st != nil && st.FailureReason != "":
		r.Recorder.Eventf(m, "Warning", "FailedMigration", "VirtualMachineInstance %s did not migrate: %s", m.Spec.VMIName, st.FailureReason)
	case m.Status.Phase == kubevirtv1.MigrationFailed:
		r.Recorder.Eventf(m, "Warning", "FailedMigration", "VirtualMachineInstance %s did not migrate", m.Spec.VMIName)
	}
}
