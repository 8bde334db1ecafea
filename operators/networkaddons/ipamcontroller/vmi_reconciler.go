package ipamcontroller

import (
	"context"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
)

// VMIReconciler gives a VMI's networks that keep their IPs an IPAMClaim
// each, owned by its VM (the VMI itself when it has none), and releases
// them when the VMI is gone and its VM is being deleted, or, without a VM,
// when the VMI and its launcher are gone.
type VMIReconciler struct {
	Client client.Client
}

// Reconcile creates the claims the VMI req names needs, or releases them.
func (r *VMIReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := r.Client.Get(ctx, req.NamespacedName, vmi); apierrors.IsNotFound(err) {
		vmi = nil
	} else if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading vmi %s: %w", req.NamespacedName, err)
	}
	vm, err := owningVM(ctx, r.Client, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, err
	}
	if releasable(vmi, vm) {
		return ctrl.Result{}, releaseClaims(ctx, r.Client, req.NamespacedName)
	}
	if vmi == nil {
		return ctrl.Result{}, nil
	}
	nets, err := networksClaimingIPAM(ctx, r.Client, vmi)
	if err != nil {
		return ctrl.Result{}, err
	}
	owner := ownerReference(vmi, vm)
	for _, logical := range slices.Sorted(maps.Keys(nets)) {
		if err := r.ensureClaim(ctx, vmi, logical, nets[logical], owner); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// ensureClaim creates the claim of one logical network; one there already
// is kept when owner holds it, and refused as leaked otherwise.
func (r *VMIReconciler) ensureClaim(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, logical, network string, owner metav1.OwnerReference) error {
	claim := &ipamv1alpha1.IPAMClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: ClaimName(vmi.Name, logical), Namespace: vmi.Namespace,
			OwnerReferences: []metav1.OwnerReference{owner}, Finalizers: []string{Finalizer},
			Labels: ownedBy(vmi.Name),
		},
		Spec: ipamv1alpha1.IPAMClaimSpec{Network: network},
	}
	err := r.Client.Create(ctx, claim)
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating IPAMClaim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	existing := &ipamv1alpha1.IPAMClaim{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(claim), existing); err != nil {
		return fmt.Errorf("let us be on the safe side and retry later: %w", err)
	}
	if refs := existing.OwnerReferences; len(refs) == 1 && refs[0].UID == owner.UID {
		return nil
	}
	leaked := fmt.Errorf("failed since it found an existing IPAMClaim for %q", claim.Name)
	log.FromContext(ctx).Error(leaked, "leaked IPAMClaim found", "existing owner", existing.OwnerReferences)
	return leaked
}

// SetupWithManager reconciles VMIs as they come, change and go, and the
// VMI owning each claim (a VM-less VMI gone while the controller was down).
func (r *VMIReconciler) SetupWithManager(mgr ctrl.Manager) error {
	err := ctrl.NewControllerManagedBy(mgr).Named("ipam-vmi").For(&kubevirtv1.VirtualMachineInstance{}).
		Watches(&ipamv1alpha1.IPAMClaim{}, handler.EnqueueRequestsFromMapFunc(claimOwner(kubevirtv1.VirtualMachineInstanceGroupVersionKind.Kind))).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the ipam vmi controller: %w", err)
	}
	return nil
}

// releasable says whether the claims may go: with a VM, once its VMI is
// gone and it is being deleted (a stopped VM keeps its addresses);
// without one, once the VMI is gone or being deleted with no launcher left.
func releasable(vmi *kubevirtv1.VirtualMachineInstance, vm *kubevirtv1.VirtualMachine) bool {
	if vm != nil {
		return vmi == nil && vm.DeletionTimestamp != nil
	}
	return vmi == nil || (vmi.DeletionTimestamp != nil && len(vmi.Status.ActivePods) == 0)
}

// owningVM is the VM of the VMI's name, nil when there is none.
func owningVM(ctx context.Context, c client.Reader, key types.NamespacedName) (*kubevirtv1.VirtualMachine, error) {
	vm := &kubevirtv1.VirtualMachine{}
	if err := c.Get(ctx, key, vm); apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("failed getting VM %q: %w", key.String(), err)
	}
	return vm, nil
}

// ownerReference makes the VM, or the VMI when it has none, the claims'
// controller, so they go with it once released.
func ownerReference(vmi *kubevirtv1.VirtualMachineInstance, vm *kubevirtv1.VirtualMachine) metav1.OwnerReference {
	gvk, obj := kubevirtv1.VirtualMachineInstanceGroupVersionKind, client.Object(vmi)
	if vm != nil {
		gvk, obj = kubevirtv1.VirtualMachineGroupVersionKind, vm
	}
	return metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: obj.GetName(), UID: obj.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

// networksClaimingIPAM maps the VMI's logical networks that keep their IPs
// to their CNI network names: secondary Multus networks whose definition
// allows persistent IPs, and the pod network when the namespace's primary
// network does.
func networksClaimingIPAM(ctx context.Context, c client.Reader, vmi *kubevirtv1.VirtualMachineInstance) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range vmi.Spec.Networks {
		var conf *netConf
		var err error
		switch {
		case n.Multus != nil && !n.Multus.Default:
			conf, err = secondaryNetwork(ctx, c, vmi.Namespace, n.Multus.NetworkName)
		case n.Pod != nil:
			conf, err = primaryNetwork(ctx, c, vmi.Namespace)
		}
		if err != nil {
			return nil, err
		}
		if conf != nil && conf.AllowPersistentIPs {
			out[n.Name] = conf.Name
		}
	}
	return out, nil
}

func secondaryNetwork(ctx context.Context, c client.Reader, namespace, network string) (*netConf, error) {
	nad, err := getNAD(ctx, c, nadKey(namespace, network))
	if err != nil {
		return nil, err
	}
	conf, err := parseNetConf(nad)
	if err != nil {
		return nil, fmt.Errorf("failed to extract the relevant NAD information: %s: %w", nad.GetName(), err)
	}
	return conf, nil
}
