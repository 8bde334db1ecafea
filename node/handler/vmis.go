package handler

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/vmistatus"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
)

// vmiReconciler reports the state of the VMIs on this node from their
// launchers: Scheduled → Running (Ready, Paused) → Succeeded or Failed.
type vmiReconciler struct {
	c   client.Client
	cfg Config
	// rec tells, in an event on the VMI, why its guest failed.
	rec record.EventRecorder
}

func (r *vmiReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	v := &kubevirtv1.VirtualMachineInstance{}
	if err := r.c.Get(ctx, req.NamespacedName, v); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if v.Status.NodeName != r.cfg.NodeName || v.IsFinal() || v.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	pod, err := launcherPod(ctx, r.c, r.cfg.NodeName, v)
	if err != nil || pod == nil {
		return ctrl.Result{RequeueAfter: time.Second}, err
	}
	before := v.Status.DeepCopy()
	done := r.sync(ctx, v, r.cfg.locate(pod))
	if !equality.Semantic.DeepEqual(before, &v.Status) {
		if err := r.c.Status().Update(ctx, v); err != nil {
			return ctrl.Result{}, fmt.Errorf("updating VMI %s status: %w", v.Name, err)
		}
		r.reportFailure(v, before.Phase)
	}
	if done {
		return ctrl.Result{}, nil
	}
	// Nothing announces the domain's start: poll a starting VMI closely,
	// since its time to Running is what a user waits on, and a running one
	// at the pace of status changes.
	if v.Status.Phase != kubevirtv1.Running {
		return ctrl.Result{RequeueAfter: 200 * time.Millisecond}, nil
	}
	return ctrl.Result{RequeueAfter: time.Second}, nil
}

// sync maps the launcher's report onto the VMI; it returns true once the
// VMI is final.
func (r *vmiReconciler) sync(ctx context.Context, v *kubevirtv1.VirtualMachineInstance, l launcherRef) bool {
	if final, err := launcher.ReadStatus(l.dir); err == nil && final.Exited {
		if final.Reason == launcher.ReasonMigrated || migrating(v, r.cfg.NodeName) {
			// The guest runs on the target, whose agent reports it once
			// the migration hands the VMI over; or a migration from here
			// is in flight, and its workflow decides from both nodes'
			// copies what ended: nothing is concluded here.
			return true
		}
		phase := kubevirtv1.Succeeded
		if final.Message != "" {
			phase = kubevirtv1.Failed
		}
		vmistatus.SetPhase(v, phase)
		vmistatus.SetCondition(v, kubevirtv1.VirtualMachineInstanceReady, corev1.ConditionFalse, "GuestNotRunning", final.Message)
		return true
	}
	st, err := l.client().Status(ctx)
	if err != nil {
		if !l.running() && v.Status.Phase == kubevirtv1.Running {
			vmistatus.SetPhase(v, kubevirtv1.Failed)
			vmistatus.SetCondition(v, kubevirtv1.VirtualMachineInstanceReady, corev1.ConditionFalse, "LauncherDied", LauncherDiedMessage)
			return true
		}
		// The launcher is still starting libvirt and preparing disks.
		return false
	}
	if st.State == libvirt.Running || st.State == libvirt.Paused {
		r.reportDevices(ctx, v, l.networkedPod())
		reportAccessCredentials(v)
		r.reportAgent(ctx, v, l, st.AgentConnected)
	}
	switch st.State {
	case libvirt.Running:
		vmistatus.SetPhase(v, kubevirtv1.Running)
		ready, reason := probedReady(v, l.networkedPod())
		vmistatus.SetCondition(v, kubevirtv1.VirtualMachineInstanceReady, ready, reason, "")
		removeCondition(v, kubevirtv1.VirtualMachineInstancePaused)
	case libvirt.Paused:
		vmistatus.SetPhase(v, kubevirtv1.Running)
		reason, msg := pausedReason(v, r.cfg.NodeName)
		if reason == "" {
			return false
		}
		vmistatus.SetCondition(v, kubevirtv1.VirtualMachineInstancePaused, corev1.ConditionTrue, reason, msg)
		vmistatus.SetCondition(v, kubevirtv1.VirtualMachineInstanceReady, corev1.ConditionFalse, "Paused", "VMI was paused")
	}
	return false
}

// migrating tells a migration of the VMI from node that has not ended:
// started, neither completed nor failed.
func migrating(v *kubevirtv1.VirtualMachineInstance, node string) bool {
	st := v.Status.MigrationState
	return st != nil && st.SourceNode == node && st.StartTimestamp != nil && !st.Completed && !st.Failed
}

// reportFailure records why the guest failed once the VMI turns Failed:
// the condition says it too, but events outlive the VMI a VM replaces.
func (r *vmiReconciler) reportFailure(v *kubevirtv1.VirtualMachineInstance, was kubevirtv1.VirtualMachineInstancePhase) {
	if r.rec == nil || v.Status.Phase != kubevirtv1.Failed || was == kubevirtv1.Failed {
		return
	}
	for _, c := range v.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineInstanceReady && c.Message != "" {
			r.rec.Event(v, corev1.EventTypeWarning, c.Reason, c.Message)
			return
		}
	}
}

func removeCondition(v *kubevirtv1.VirtualMachineInstance, typ kubevirtv1.VirtualMachineInstanceConditionType) {
	out := v.Status.Conditions[:0]
	for _, c := range v.Status.Conditions {
		if c.Type != typ {
			out = append(out, c)
		}
	}
	v.Status.Conditions = out
}

// launcherPod returns the VMI's launcher pod on node, nil when there is none.
func launcherPod(ctx context.Context, c client.Client, node string, v *kubevirtv1.VirtualMachineInstance) (*corev1.Pod, error) {
	list := &corev1.PodList{}
	if err := c.List(ctx, list, client.InNamespace(v.Namespace),
		client.MatchingLabels{kubevirtv1.CreatedByLabel: string(v.UID)}); err != nil {
		return nil, fmt.Errorf("listing launcher pods of %s: %w", v.Name, err)
	}
	for i := range list.Items {
		if list.Items[i].Spec.NodeName == node {
			return &list.Items[i], nil
		}
	}
	return nil, nil
}

// probedReady is a running guest's readiness: ready, unless the VMI has
// a readiness probe, whose verdict the kubelet gives on the launcher pod,
// as upstream's VMI Ready condition follows its pod's.
func probedReady(v *kubevirtv1.VirtualMachineInstance, pod *corev1.Pod) (corev1.ConditionStatus, string) {
	if v.Spec.ReadinessProbe == nil || pod == nil {
		return corev1.ConditionTrue, ""
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return corev1.ConditionTrue, ""
		}
	}
	return corev1.ConditionFalse, "PodNotReady"
}
