package ipamcontroller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
)

// VMReconciler releases a VM's claims once it is gone, or being deleted
// with its VMI gone: the VMI reconciler sees no VMI event when a stopped
// VM is deleted.
type VMReconciler struct {
	Client client.Client
}

// Reconcile releases the claims of the VM req names when it goes.
func (r *VMReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	vm := &kubevirtv1.VirtualMachine{}
	err := r.Client.Get(ctx, req.NamespacedName, vm)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, releaseClaims(ctx, r.Client, req.NamespacedName)
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading vm %s: %w", req.NamespacedName, err)
	}
	if vm.DeletionTimestamp == nil {
		return ctrl.Result{}, nil
	}
	err = r.Client.Get(ctx, req.NamespacedName, &kubevirtv1.VirtualMachineInstance{})
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, releaseClaims(ctx, r.Client, req.NamespacedName)
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading vmi %s: %w", req.NamespacedName, err)
	}
	return ctrl.Result{}, nil
}

// SetupWithManager reconciles VMs as they change and go (a new VM has no
// claims to release), and the VM owning each claim: a VM deleted while the
// controller was down leaves claims only they can name.
func (r *VMReconciler) SetupWithManager(mgr ctrl.Manager) error {
	notCreated := predicate.Funcs{CreateFunc: func(event.CreateEvent) bool { return false }}
	err := ctrl.NewControllerManagedBy(mgr).Named("ipam-vm").
		For(&kubevirtv1.VirtualMachine{}, builder.WithPredicates(notCreated)).
		Watches(&ipamv1alpha1.IPAMClaim{}, handler.EnqueueRequestsFromMapFunc(claimOwner(kubevirtv1.VirtualMachineGroupVersionKind.Kind))).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the ipam vm controller: %w", err)
	}
	return nil
}

// claimOwner maps a claim to its owner of kind: each reconciler
// rechecks the claims of its own kind.
func claimOwner(kind string) handler.MapFunc {
	return func(_ context.Context, claim client.Object) []reconcile.Request {
		for _, ref := range claim.GetOwnerReferences() {
			if ref.Kind == kind && ref.APIVersion == kubevirtv1.SchemeGroupVersion.String() {
				return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: claim.GetNamespace(), Name: ref.Name}}}
			}
		}
		return nil
	}
}
