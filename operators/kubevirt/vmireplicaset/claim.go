package vmireplicaset

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// claimer decides, VMI by VMI, what the replica set owns: it adopts
// matching orphans and releases owned VMIs its selector no longer matches,
// as upstream's controller ref manager does.
type claimer struct {
	r        *Reconciler
	rs       *kubevirtv1.VirtualMachineInstanceReplicaSet
	selector labels.Selector
	// recheck is the result of the one live read done before the first
	// adoption; nil until then.
	recheck *error
}

// claim lists the namespace's VMIs live and returns those the replica set
// owns once orphans are adopted and strays released. Every failed adoption
// or release is reported together, so the sync is retried.
func (r *Reconciler) claim(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet, selector labels.Selector) ([]*kubevirtv1.VirtualMachineInstance, error) {
	list := &kubevirtv1.VirtualMachineInstanceList{}
	if err := r.reader().List(ctx, list, client.InNamespace(rs.Namespace)); err != nil {
		return nil, fmt.Errorf("listing VMIs in %s: %w", rs.Namespace, err)
	}
	cl := &claimer{r: r, rs: rs, selector: selector}
	var claimed []*kubevirtv1.VirtualMachineInstance
	var errs []error
	for i := range list.Items {
		vmi := &list.Items[i]
		ok, err := cl.claimOne(ctx, vmi)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, vmi)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("claiming VMIs for VirtualMachineInstanceReplicaSet %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	return claimed, nil
}

// claimOne tells whether the replica set owns the VMI after adopting or
// releasing it if needed. Nothing is adopted by, or released from, a
// replica set being deleted, and a VMI being deleted is not adopted.
func (c *claimer) claimOne(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) (bool, error) {
	ref := metav1.GetControllerOf(vmi)
	owned := ref != nil && ref.UID == c.rs.UID
	matched := c.selector.Matches(labels.Set(vmi.Labels))
	switch {
	case owned && matched:
		return true, nil
	case owned:
		if c.rs.DeletionTimestamp != nil {
			return false, nil
		}
		return false, c.release(ctx, vmi)
	case ref == nil && matched && c.rs.DeletionTimestamp == nil && vmi.DeletionTimestamp == nil:
		if err := c.adopt(ctx, vmi); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// adopt makes the replica set the VMI's controller. The patch carries the
// VMI's UID, so a VMI deleted and recreated under the same name in the
// meantime is not taken, and it replaces the owner list as upstream's
// merge patch does.
func (c *claimer) adopt(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) error {
	if err := c.canAdopt(ctx); err != nil {
		return fmt.Errorf("can't adopt VirtualMachineInstance %v/%v (%v): %w", vmi.Namespace, vmi.Name, vmi.UID, err)
	}
	gvk := kubevirtv1.VirtualMachineInstanceReplicaSetGroupVersionKind
	patch := fmt.Sprintf(
		`{"metadata":{"ownerReferences":[{"apiVersion":"%s","kind":"%s","name":"%s","uid":"%s","controller":true,"blockOwnerDeletion":true}],"uid":"%s"}}`,
		gvk.GroupVersion(), gvk.Kind, c.rs.Name, c.rs.UID, vmi.UID)
	if err := c.r.Client.Patch(ctx, vmi, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return fmt.Errorf("adopting VirtualMachineInstance %s/%s: %w", vmi.Namespace, vmi.Name, err)
	}
	return nil
}

// canAdopt reads the replica set live once per sync: the cached copy may
// predate its deletion, and adopting into a deleted owner would have the
// garbage collector delete the VMI.
func (c *claimer) canAdopt(ctx context.Context) error {
	if c.recheck != nil {
		return *c.recheck
	}
	err := c.recheckOwner(ctx)
	c.recheck = &err
	return err
}

func (c *claimer) recheckOwner(ctx context.Context) error {
	fresh := &kubevirtv1.VirtualMachineInstanceReplicaSet{}
	if err := c.r.reader().Get(ctx, client.ObjectKeyFromObject(c.rs), fresh); err != nil {
		return fmt.Errorf("can't recheck DeletionTimestamp: %w", err)
	}
	if fresh.UID != c.rs.UID {
		return fmt.Errorf("original ReplicaSet %v/%v is gone: got uid %v, wanted %v", c.rs.Namespace, c.rs.Name, fresh.UID, c.rs.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%v/%v has just been deleted at %v", fresh.Namespace, fresh.Name, fresh.DeletionTimestamp)
	}
	return nil
}

// release drops the VMI's owner references. A VMI already gone, or one
// the API server says is no longer ours (422), needs nothing more.
func (c *claimer) release(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance) error {
	err := c.r.Client.Patch(ctx, vmi, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"ownerReferences":[]}}`)))
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
		return nil
	}
	return fmt.Errorf("releasing VirtualMachineInstance %s/%s: %w", vmi.Namespace, vmi.Name, err)
}
