package vmireplicaset

import (
	"context"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// scale creates or deletes VMIs until the active ones number
// spec.replicas, at most BurstReplicas per sync; the rest follows in the
// next sync, which the VMI events bring. The returned error is the raw
// error of the first failed API call, which ReplicaFailure carries.
func (r *Reconciler) scale(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet, active []*kubevirtv1.VirtualMachineInstance) error {
	diff := len(active) - wantedReplicas(rs)
	n := min(abs(diff), BurstReplicas)
	switch {
	case diff < 0:
		return parallel(n, func(int) error { return r.createOne(ctx, rs) })
	case diff > 0:
		victims := deletionOrder(active)[:n]
		return parallel(n, func(i int) error {
			return r.deleteOne(ctx, rs, victims[i], "Error deleting virtual machine instance %s: %v",
				"Stopped the virtual machine by deleting the virtual machine instance %v")
		})
	}
	return nil
}

// cleanFinished deletes VMIs that finished or whose pod is terminating;
// their replacements were created by scale, as they were not counted.
func (r *Reconciler) cleanFinished(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet, finished []*kubevirtv1.VirtualMachineInstance) error {
	n := min(len(finished), BurstReplicas)
	return parallel(n, func(i int) error {
		return r.deleteOne(ctx, rs, finished[i], "Error deleting finished virtual machine %s: %v", "Deleted finished virtual machine: %v")
	})
}

func (r *Reconciler) createOne(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet) error {
	vmi := newVMI(rs)
	if err := r.Client.Create(ctx, vmi); err != nil {
		r.Recorder.Eventf(rs, corev1.EventTypeWarning, ReasonFailedCreate, "Error creating virtual machine instance: %v", err)
		return err
	}
	r.Recorder.Eventf(rs, corev1.EventTypeNormal, ReasonSuccessfulCreate, "Started the virtual machine by creating the new virtual machine instance %v", vmi.Name)
	return nil
}

// deleteOne deletes a VMI; failed takes its name and the error, done its UID,
// as upstream's event messages do. A VMI gone since it was listed is no
// failure (upstream would report one and mark the replica set failed).
func (r *Reconciler) deleteOne(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet, vmi *kubevirtv1.VirtualMachineInstance, failed, done string) error {
	err := r.Client.Delete(ctx, vmi)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		r.Recorder.Eventf(rs, corev1.EventTypeWarning, ReasonFailedDelete, failed, vmi.Name, err)
		return err
	}
	r.Recorder.Eventf(rs, corev1.EventTypeNormal, ReasonSuccessfulDelete, done, vmi.UID)
	return nil
}

// newVMI builds a replica from the template: its whole metadata (so
// annotations and finalizers carry over) with the template labels, a name
// generated from the template's name, generateName or the replica set's
// name (upstream appends no dash), and the replica set as controller.
func newVMI(rs *kubevirtv1.VirtualMachineInstanceReplicaSet) *kubevirtv1.VirtualMachineInstance {
	t := rs.Spec.Template.DeepCopy()
	base := rs.Name
	if t.ObjectMeta.Name != "" {
		base = t.ObjectMeta.Name
	} else if t.ObjectMeta.GenerateName != "" {
		base = t.ObjectMeta.GenerateName
	}
	yes := true
	gvk := kubevirtv1.VirtualMachineInstanceReplicaSetGroupVersionKind
	vmi := &kubevirtv1.VirtualMachineInstance{
		TypeMeta:   metav1.TypeMeta{APIVersion: kubevirtv1.GroupVersion.String(), Kind: "VirtualMachineInstance"},
		ObjectMeta: t.ObjectMeta,
		Spec:       t.Spec,
	}
	vmi.Name, vmi.GenerateName, vmi.Namespace = "", base, rs.Namespace
	vmi.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: rs.Name, UID: rs.UID,
		Controller: &yes, BlockOwnerDeletion: &yes,
	}}
	return vmi
}

// deletionOrder sorts the VMIs to remove first to the front. Upstream takes
// them in its cache's arbitrary order; here the ones doing the least work
// go first, as Kubernetes' ReplicaSet does: not yet scheduled, then not
// yet running, then not ready, then the newest (an older VMI has more
// state worth keeping), the name breaking ties so the choice is stable.
func deletionOrder(vmis []*kubevirtv1.VirtualMachineInstance) []*kubevirtv1.VirtualMachineInstance {
	out := append([]*kubevirtv1.VirtualMachineInstance(nil), vmis...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := progress(a), progress(b); ra != rb {
			return ra < rb
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return b.CreationTimestamp.Before(&a.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	return out
}

// progress ranks how far a VMI has come: unscheduled 0, scheduled but not
// running 1, running but not ready 2, ready 3.
func progress(vmi *kubevirtv1.VirtualMachineInstance) int {
	switch vmi.Status.Phase {
	case kubevirtv1.VmPhaseUnset, kubevirtv1.Pending, kubevirtv1.Scheduling:
		return 0
	case kubevirtv1.Scheduled:
		return 1
	}
	if !isReady(vmi) {
		return 2
	}
	return 3
}

// parallel runs op for 0..n-1 at once, as upstream issues a burst, and
// returns the first error; the others are most likely the same.
func parallel(n int, op func(i int) error) error {
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := op(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
