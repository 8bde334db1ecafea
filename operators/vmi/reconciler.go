// Package vmi is virt-controller's VirtualMachineInstance controller: it
// creates the launcher pod the scheduler places, follows it until a node
// agent takes over (Pending → Scheduling → Scheduled), and removes the pod
// when the VMI ends or is deleted.
package vmi

import (
	"context"
	"fmt"
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
	if len(pods) == 0 && vmi.IsUnprocessed() {
		if err := r.createPod(ctx, vmi); err != nil {
			return ctrl.Result{}, err
		}
	} else if len(pods) > 0 {
		follow(vmi, &pods[0])
	}
	if vmi.Status.Phase == kubevirtv1.VmPhaseUnset {
		vmistatus.SetPhase(vmi, kubevirtv1.Pending)
	}
	if equality.Semantic.DeepEqual(before, &vmi.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Update(ctx, vmi); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating VMI %s status: %w", vmi.Name, err)
	}
	return ctrl.Result{}, nil
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
	pod, err := launcherPod(vmi, block)
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
		vmistatus.SetCondition(vmi, kubevirtv1.VirtualMachineInstanceSynchronized, corev1.ConditionFalse, "PodFailed", pod.Status.Message)
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

// finish removes the launcher pods of a final or deleted VMI, then drops the
// finalizer once they are gone.
func (r *Reconciler) finish(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, pods []corev1.Pod) (ctrl.Result, error) {
	for i := range pods {
		if pods[i].DeletionTimestamp == nil {
			if err := r.Client.Delete(ctx, &pods[i]); err != nil && !apierrors.IsNotFound(err) {
				return ctrl.Result{}, fmt.Errorf("deleting launcher pod %s: %w", pods[i].Name, err)
			}
		}
	}
	if len(pods) > 0 {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	if controllerutil.RemoveFinalizer(vmi, kubevirtv1.VirtualMachineInstanceFinalizer) {
		if err := r.Client.Update(ctx, vmi); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("removing finalizer from VMI %s: %w", vmi.Name, err)
		}
	}
	return ctrl.Result{}, nil
}

// SetupWithManager watches VMIs and their launcher pods, with several
// workers so a burst of VMIs gets its pods in parallel.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("virtualmachineinstance").
		WithOptions(controller.Options{MaxConcurrentReconciles: 8}).
		For(&kubevirtv1.VirtualMachineInstance{}).Owns(&corev1.Pod{}).Complete(r)
}
