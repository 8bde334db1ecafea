// Package vm is virt-controller's VirtualMachine controller: it creates and
// removes the VirtualMachineInstance as the run strategy and start/stop
// requests say, and reports printableStatus, Ready and Created.
package vm

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/virtflow/virtflow/operators/kubevirt/instancetype"
)

// Reconciler reconciles VirtualMachines.
type Reconciler struct {
	Client   client.Client
	Recorder record.EventRecorder
}

// Reconcile follows the model reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	vm := &kubevirtv1.VirtualMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, vm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	vmi, err := r.currentVMI(ctx, vm)
	if err != nil {
		return ctrl.Result{}, err
	}
	strategy, err := vm.RunStrategy()
	if err != nil {
		return ctrl.Result{}, r.writeStatus(ctx, vm, vmi, err)
	}
	var pending *kubevirtv1.VirtualMachineStateChangeRequest
	if len(vm.Status.StateChangeRequests) > 0 {
		pending = &vm.Status.StateChangeRequests[0]
	}
	var res ctrl.Result
	if vm.DeletionTimestamp == nil {
		if err := r.ensureDataVolumes(ctx, vm); err != nil {
			return ctrl.Result{}, r.writeStatus(ctx, vm, vmi, &syncError{reason: "FailedCreate",
				err: fmt.Errorf("Error encountered while creating DataVolumes: %w", err)})
		}
		// Admission lets a VM name an instancetype that does not exist
		// yet; it waits, Stopped, with the reason in its Failure condition.
		if _, _, err := matchedSpecs(ctx, r.Client, vm); err != nil {
			return ctrl.Result{RequeueAfter: 5 * time.Second}, r.writeStatus(ctx, vm, vmi, err)
		}
		if err := instancetype.Store(ctx, r.Client, vm); err != nil {
			return ctrl.Result{RequeueAfter: 5 * time.Second}, r.writeStatus(ctx, vm, vmi, &syncError{reason: "FailedCreate", err: err})
		}
		var a action
		a, res = r.plan(vm, vmi, strategy, pending)
		if vmi, err = r.act(ctx, vm, vmi, a); err != nil {
			var se *syncError
			if errors.As(err, &se) {
				return ctrl.Result{RequeueAfter: 5 * time.Second}, r.writeStatus(ctx, vm, vmi, se)
			}
			return ctrl.Result{}, err
		}
		consumeRequest(vm, vmi, pending)
	}
	vm.Status.RunStrategy = strategy
	return res, r.writeStatus(ctx, vm, vmi, nil)
}

// plan decides what to do with the VMI. A VM whose VMI failed keeps it,
// with its launcher pod and log, until the restart backoff has passed, so
// the reason can still be read while the VM shows CrashLoopBackOff.
func (r *Reconciler) plan(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance, strategy kubevirtv1.VirtualMachineRunStrategy,
	pending *kubevirtv1.VirtualMachineStateChangeRequest) (action, ctrl.Result) {
	a := decide(strategy, vmi, pending)
	automatic := a == recreate && pending == nil
	if automatic && vmi.Status.Phase == kubevirtv1.Failed && recordFailure(vm, vmi) {
		r.Recorder.Eventf(vm, corev1.EventTypeWarning, "VMIFailed", "VirtualMachineInstance %s failed: %s", vmi.Name, failureOf(vmi))
	}
	if wait := backingOff(vm); (a == create || automatic) && wait > 0 {
		return keep, ctrl.Result{RequeueAfter: wait}
	}
	return a, ctrl.Result{}
}

// failureOf is the reason a failed VMI gives in its conditions: a failed
// launcher pod's (Synchronized), else the guest's (Ready, from the node).
func failureOf(vmi *kubevirtv1.VirtualMachineInstance) string {
	for _, typ := range []kubevirtv1.VirtualMachineInstanceConditionType{kubevirtv1.VirtualMachineInstanceSynchronized, kubevirtv1.VirtualMachineInstanceReady} {
		for _, c := range vmi.Status.Conditions {
			if c.Type == typ && c.Status == corev1.ConditionFalse && c.Message != "" {
				return c.Message
			}
		}
	}
	return "phase " + string(vmi.Status.Phase)
}

// backingOff is how long a crash-looping VM must still wait before the next
// start; zero when it may start now.
func backingOff(vm *kubevirtv1.VirtualMachine) time.Duration {
	f := vm.Status.StartFailure
	if f == nil || f.RetryAfterTimestamp == nil {
		return 0
	}
	return time.Until(f.RetryAfterTimestamp.Time)
}

// currentVMI returns the VMI owned by this VM, nil when there is none.
func (r *Reconciler) currentVMI(ctx context.Context, vm *kubevirtv1.VirtualMachine) (*kubevirtv1.VirtualMachineInstance, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: vm.Namespace, Name: vm.Name}, vmi)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading VMI of %s: %w", vm.Name, err)
	}
	if !metav1.IsControlledBy(vmi, vm) {
		return nil, fmt.Errorf("VirtualMachineInstance %s/%s exists and is not owned by VirtualMachine %s", vmi.Namespace, vmi.Name, vm.Name)
	}
	return vmi, nil
}

func (r *Reconciler) act(ctx context.Context, vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance, a action) (*kubevirtv1.VirtualMachineInstance, error) {
	switch a {
	case create:
		next := instanceFor(vm)
		if err := expand(ctx, r.Client, vm, next); err != nil {
			r.Recorder.Eventf(vm, corev1.EventTypeWarning, "FailedCreate", "Error creating virtual machine instance: Failed to apply instancetype: %v", err)
			return vmi, err
		}
		if err := r.Client.Create(ctx, next); err != nil && !apierrors.IsAlreadyExists(err) {
			r.Recorder.Eventf(vm, corev1.EventTypeWarning, "FailedCreate", "Error creating VirtualMachineInstance: %v", err)
			return vmi, fmt.Errorf("creating VMI for %s: %w", vm.Name, err)
		}
		r.Recorder.Eventf(vm, corev1.EventTypeNormal, "SuccessfulCreate", "Started the virtual machine by creating the new virtual machine instance %s", next.Name)
		return next, nil
	case remove, recreate:
		if a == recreate && vmi.Status.Phase == kubevirtv1.Failed {
			recordFailure(vm, vmi)
		}
		if err := r.Client.Delete(ctx, vmi); err != nil && !apierrors.IsNotFound(err) {
			return vmi, fmt.Errorf("deleting VMI of %s: %w", vm.Name, err)
		}
		r.Recorder.Eventf(vm, corev1.EventTypeNormal, "SuccessfulDelete", "Stopped the virtual machine by deleting the virtual machine instance %s", vmi.UID)
		now := metav1.Now()
		vmi.DeletionTimestamp = &now
	}
	return vmi, nil
}

// instanceFor builds the VMI from the VM's template, owned by the VM.
func instanceFor(vm *kubevirtv1.VirtualMachine) *kubevirtv1.VirtualMachineInstance {
	yes := true
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{
		Name: vm.Name, Namespace: vm.Namespace, Labels: map[string]string{}, Annotations: map[string]string{},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: kubevirtv1.GroupVersion.String(), Kind: "VirtualMachine", Name: vm.Name, UID: vm.UID,
			Controller: &yes, BlockOwnerDeletion: &yes,
		}},
	}}
	if t := vm.Spec.Template; t != nil {
		for k, v := range t.ObjectMeta.Labels {
			vmi.Labels[k] = v
		}
		for k, v := range t.ObjectMeta.Annotations {
			vmi.Annotations[k] = v
		}
		vmi.Spec = *t.Spec.DeepCopy()
	}
	vmi.Labels[kubevirtv1.VirtualMachineLabel] = vm.Name
	return vmi
}

// consumeRequest drops the first state-change request once it has taken effect.
func consumeRequest(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance, req *kubevirtv1.VirtualMachineStateChangeRequest) {
	if req == nil {
		return
	}
	done := (req.Action == kubevirtv1.StopRequest && (vmi == nil || vmi.DeletionTimestamp != nil)) ||
		(req.Action == kubevirtv1.StartRequest && vmi != nil && vmi.DeletionTimestamp == nil && !vmi.IsFinal())
	if done {
		vm.Status.StateChangeRequests = vm.Status.StateChangeRequests[1:]
	}
}

// recordFailure backs off repeated start failures, as upstream's
// CrashLoopBackOff does: 10s, 20s, 40s ... capped at 5 minutes. It tells
// whether this VMI's failure is new.
func recordFailure(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance) bool {
	f := vm.Status.StartFailure
	if f == nil {
		f = &kubevirtv1.VirtualMachineStartFailure{}
	}
	if f.LastFailedVMIUID == vmi.UID {
		return false
	}
	f.ConsecutiveFailCount++
	f.LastFailedVMIUID = vmi.UID
	backoff := 10 * time.Second << min(f.ConsecutiveFailCount-1, 5)
	if backoff > 5*time.Minute {
		backoff = 5 * time.Minute
	}
	retry := metav1.NewTime(time.Now().Add(backoff))
	f.RetryAfterTimestamp = &retry
	vm.Status.StartFailure = f
	return true
}

// writeStatus reports the VM's state; failure, when not nil, is the sync
// error its Failure condition carries.
func (r *Reconciler) writeStatus(ctx context.Context, vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance, failure error) error {
	before := &kubevirtv1.VirtualMachine{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(vm), before); err != nil {
		return client.IgnoreNotFound(err)
	}
	vm.Status.Created = vmi != nil && vmi.DeletionTimestamp == nil
	vm.Status.Ready = vmi != nil && vmi.DeletionTimestamp == nil && vmi.Status.Phase == kubevirtv1.Running && hasCondition(vmi, kubevirtv1.VirtualMachineInstanceReady)
	if vm.Status.Ready && vm.Status.StartFailure != nil {
		vm.Status.StartFailure = nil
	}
	vm.Status.PrintableStatus = printable(vm, vmi)
	vm.Status.ObservedGeneration = vm.Generation
	vm.Status.DesiredGeneration = vm.Generation
	setReady(vm)
	setFailure(vm, failure)
	if equality.Semantic.DeepEqual(before.Status, vm.Status) {
		return nil
	}
	if err := r.Client.Status().Update(ctx, vm); err != nil {
		return fmt.Errorf("updating VM %s status: %w", vm.Name, err)
	}
	return nil
}

func setReady(vm *kubevirtv1.VirtualMachine) {
	status, reason, msg := corev1.ConditionFalse, "VMINotExists", "VMI does not exist"
	switch {
	case vm.Status.Ready:
		status, reason, msg = corev1.ConditionTrue, "", ""
	case vm.Status.Created:
		reason, msg = "VMINotReady", "VMI is not ready"
	}
	for i, c := range vm.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineReady {
			if c.Status != status {
				vm.Status.Conditions[i].LastTransitionTime = metav1.Now()
			}
			vm.Status.Conditions[i].Status, vm.Status.Conditions[i].Reason, vm.Status.Conditions[i].Message = status, reason, msg
			return
		}
	}
	vm.Status.Conditions = append(vm.Status.Conditions, kubevirtv1.VirtualMachineCondition{
		Type: kubevirtv1.VirtualMachineReady, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.Now(),
	})
}

// SetupWithManager watches VMs and the VMIs they own. Several workers, as
// upstream's virt-controller runs: a burst of VMs must not queue behind
// one API round trip each.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("virtualmachine").
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		For(&kubevirtv1.VirtualMachine{}).Owns(&kubevirtv1.VirtualMachineInstance{}).Complete(r)
}
