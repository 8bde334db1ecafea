// Package vmi is virt-controller's VirtualMachineInstance controller: it
// creates the launcher pod the scheduler places, follows it until a node
// agent takes over (Pending → Scheduling → Scheduled), and removes the pod
// when the VMI ends or is deleted.
package vmi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/kube/vmistatus"
	"github.com/virtflow/virtflow/kube/vmivolumes"
)

// Reconciler reconciles VirtualMachineInstances up to Scheduled.
type Reconciler struct {
	Client   client.Client
	Recorder record.EventRecorder
}

// Reconcile follows the model reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := r.Client.Get(ctx, req.NamespacedName, vmi); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	pods, err := r.launcherPods(ctx, vmi)
	if err != nil {
		return ctrl.Result{}, err
	}
	if vmi.DeletionTimestamp != nil || vmi.IsFinal() {
		return r.finish(ctx, vmi, pods)
	}
	if controllerutil.AddFinalizer(vmi, kubevirtv1.VirtualMachineInstanceFinalizer) {
		if err := r.Client.Update(ctx, vmi); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer to VMI %s: %w", vmi.Name, err)
		}
	}
	before := vmi.Status.DeepCopy()
	var result ctrl.Result
	if len(pods) == 0 && vmi.IsUnprocessed() {
		if err := r.createPod(ctx, vmi); errors.Is(err, errNetworkMissing) {
			result.RequeueAfter = 5 * time.Second
		} else if err != nil {
			return ctrl.Result{}, err
		}
	} else if len(pods) > 0 {
		follow(vmi, &pods[0])
		if vmi.Status.Phase == kubevirtv1.Failed && before.Phase != kubevirtv1.Failed {
			r.Recorder.Event(vmi, corev1.EventTypeWarning, "PodFailed", podFailure(&pods[0]))
		}
	}
	if vmi.Status.Phase == kubevirtv1.VmPhaseUnset {
		vmistatus.SetPhase(vmi, kubevirtv1.Pending)
	}
	if equality.Semantic.DeepEqual(before, &vmi.Status) {
		return result, nil
	}
	if err := r.Client.Status().Update(ctx, vmi); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating VMI %s status: %w", vmi.Name, err)
	}
	return result, nil
}

func (r *Reconciler) launcherPods(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) ([]corev1.Pod, error) {
	list := &corev1.PodList{}
	if err := r.Client.List(ctx, list, client.InNamespace(vmi.Namespace),
		client.MatchingLabels{kubevirtv1.CreatedByLabel: string(vmi.UID)}); err != nil {
		return nil, fmt.Errorf("listing launcher pods of %s: %w", vmi.Name, err)
	}
	return list.Items, nil
}

func (r *Reconciler) createPod(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) error {
	block, err := r.blockClaims(ctx, vmi)
	if err != nil {
		return err
	}
	atts, err := r.attachments(ctx, vmi)
	if errors.Is(err, errNetworkMissing) {
		// The definition may come: the VMI waits, saying why.
		msg := strings.TrimPrefix(err.Error(), errNetworkMissing.Error()+": ")
		r.Recorder.Event(vmi, corev1.EventTypeWarning, "FailedCreate", msg)
		vmistatus.SetCondition(vmi, kubevirtv1.VirtualMachineInstanceSynchronized, corev1.ConditionFalse, "FailedCreate", msg)
		return err
	} else if err != nil {
		return err
	}
	pod, err := launcherPod(vmi, block)
	if err == nil {
		err = withAttachments(pod, atts)
	}
	if err != nil {
		vmistatus.SetPhase(vmi, kubevirtv1.Failed)
		r.Recorder.Event(vmi, corev1.EventTypeWarning, "FailedCreate", err.Error())
		return nil
	}
	err = r.Client.Create(ctx, pod)
	if apierrors.IsAlreadyExists(err) {
		// Created by an earlier reconcile this one's cache did not show.
		vmistatus.SetPhase(vmi, kubevirtv1.Pending)
		return nil
	}
	if err != nil {
		r.Recorder.Eventf(vmi, corev1.EventTypeWarning, "FailedCreate", "Error creating pod: %v", err)
		return fmt.Errorf("creating launcher pod for %s: %w", vmi.Name, err)
	}
	r.Recorder.Eventf(vmi, corev1.EventTypeNormal, "SuccessfulCreate", "Created virtual machine pod %s", pod.Name)
	vmistatus.SetPhase(vmi, kubevirtv1.Pending)
	return nil
}

// blockClaims are the VMI's claims in volumeMode Block, which the launcher
// gets as devices rather than mounts. A claim not created yet (its
// DataVolume is still pending) counts as a filesystem.
func (r *Reconciler) blockClaims(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) (map[string]bool, error) {
	out := map[string]bool{}
	for _, v := range vmi.Spec.Volumes {
		name := vmivolumes.ClaimName(v)
		if name == "" {
			continue
		}
		pvc := &corev1.PersistentVolumeClaim{}
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: vmi.Namespace, Name: name}, pvc)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading claim %s of %s: %w", name, vmi.Name, err)
		}
		out[name] = pvc.Spec.VolumeMode != nil && *pvc.Spec.VolumeMode == corev1.PersistentVolumeBlock
	}
	return out, nil
}

// follow mirrors the pod's scheduling into the VMI until the node agent
// owns the phase (Scheduled and later).
func follow(vmi *kubevirtv1.VirtualMachineInstance, pod *corev1.Pod) {
	if pod.Status.Phase == corev1.PodFailed && !vmi.IsRunning() {
		vmistatus.SetPhase(vmi, kubevirtv1.Failed)
		vmistatus.SetCondition(vmi, kubevirtv1.VirtualMachineInstanceSynchronized, corev1.ConditionFalse, "PodFailed", podFailure(pod))
		return
	}
	if !vmi.IsUnprocessed() && vmi.Status.Phase != kubevirtv1.Scheduling {
		return
	}
	if pod.Spec.NodeName == "" {
		vmistatus.SetPhase(vmi, kubevirtv1.Scheduling)
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled {
				vmistatus.SetCondition(vmi, kubevirtv1.VirtualMachineInstanceConditionType(corev1.PodScheduled), c.Status, c.Reason, c.Message)
			}
		}
		return
	}
	vmistatus.SetPhase(vmi, kubevirtv1.Scheduled)
	vmi.Status.NodeName = pod.Spec.NodeName
	vmistatus.SetCondition(vmi, kubevirtv1.VirtualMachineInstanceConditionType(corev1.PodScheduled), corev1.ConditionTrue, "", "")
}

// finish removes the launcher pods of a deleted VMI, and the still running
// ones of a final VMI, then drops the finalizer once those are gone. A
// final VMI keeps its terminated pod, so `kubectl logs` explains a failure
// until the VMI is deleted (the pod goes with it, as its owner).
func (r *Reconciler) finish(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, pods []corev1.Pod) (ctrl.Result, error) {
	waiting := 0
	for i := range pods {
		p := &pods[i]
		if vmi.DeletionTimestamp == nil && (p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded) {
			continue
		}
		waiting++
		// A launcher that reported its failure is on its way out: let it
		// finish, so its pod keeps the log, unless it lingers.
		if vmi.DeletionTimestamp == nil && time.Since(finalAt(vmi)) < launcherExitGrace {
			continue
		}
		if p.DeletionTimestamp == nil {
			if err := r.Client.Delete(ctx, p); err != nil && !apierrors.IsNotFound(err) {
				return ctrl.Result{}, fmt.Errorf("deleting launcher pod %s: %w", p.Name, err)
			}
		}
	}
	if waiting > 0 {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	if controllerutil.RemoveFinalizer(vmi, kubevirtv1.VirtualMachineInstanceFinalizer) {
		if err := r.Client.Update(ctx, vmi); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("removing finalizer from VMI %s: %w", vmi.Name, err)
		}
	}
	return ctrl.Result{}, nil
}

// launcherExitGrace is how long a final VMI's launcher may take to exit
// by itself before its pod is deleted.
const launcherExitGrace = 30 * time.Second

// finalAt is when the VMI turned final; long ago when it does not say.
func finalAt(vmi *kubevirtv1.VirtualMachineInstance) time.Time {
	for _, t := range vmi.Status.PhaseTransitionTimestamps {
		if t.Phase == vmi.Status.Phase {
			return t.PhaseTransitionTimestamp.Time
		}
	}
	return time.Time{}
}

// podFailure says why a launcher pod failed: its containers' exit codes
// and the tail of their log, else the pod's own message.
func podFailure(pod *corev1.Pod) string {
	var parts []string
	for _, cs := range append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		t := cs.State.Terminated
		// The console log's sidecar is stopped, not failed.
		if t == nil || t.ExitCode == 0 || cs.Name == consoleLogContainer {
			continue
		}
		msg := fmt.Sprintf("container %s exited with code %d (%s)", cs.Name, t.ExitCode, t.Reason)
		if m := strings.TrimSpace(t.Message); m != "" {
			// The log's tail is what explains a failure; an event keeps
			// about a kilobyte.
			if len(m) > 800 {
				m = "..." + m[len(m)-800:]
			}
			msg += ": " + m
		}
		parts = append(parts, msg)
	}
	if len(parts) == 0 {
		if pod.Status.Message != "" {
			return pod.Status.Message
		}
		return fmt.Sprintf("launcher pod %s failed", pod.Name)
	}
	return strings.Join(parts, "; ")
}

// SetupWithManager watches VMIs and their launcher pods, with several
// workers so a burst of VMIs gets its pods in parallel.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("virtualmachineinstance").
		WithOptions(controller.Options{MaxConcurrentReconciles: 8}).
		For(&kubevirtv1.VirtualMachineInstance{}).Owns(&corev1.Pod{}).Complete(r)
}
