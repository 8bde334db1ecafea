package vmpool

import (
	"sync"

	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
)

// replicas is spec.replicas, 1 when unset.
func replicas(pool *poolv1.VirtualMachinePool) int {
	if pool.Spec.Replicas == nil {
		return 1
	}
	return int(*pool.Spec.Replicas)
}

// scale brings the pool to spec.replicas VMs, at most burstReplicas at a
// time. VMs being deleted still count: one a user deleted is only let go
// (its finalizer removed) once the count is right, and then replaced.
// stable reports that the count already was right.
func (s *syncer) scale(vms []*kubevirtv1.VirtualMachine) (bool, *syncError) {
	diff := len(vms) - replicas(s.pool)
	switch {
	case diff == 0:
		if err := s.opportunisticScaleIn(vms); err != nil {
			return false, failed(reasonFailedScaleIn, "error during opportunistic scale in: %w", err)
		}
		return true, nil
	case diff < 0:
		if err := s.scaleOut(min(-diff, burstReplicas)); err != nil {
			return false, failed(reasonFailedScaleOut, "error during scale out: %w", err)
		}
	default:
		if err := s.proactiveScaleIn(vms, min(diff, burstReplicas)); err != nil {
			return false, failed(reasonFailedScaleIn, "error during scale in: %w", err)
		}
	}
	return false, nil
}

// scaleOut creates count VMs at the lowest free indices.
func (s *syncer) scaleOut(count int) error {
	indices := freeIndices(s.pool.Name, count, s.taken)
	revision, err := s.ensureRevision()
	if err != nil {
		return err
	}
	errs := parallel(len(indices), func(i int) error {
		vm := vmFor(s.pool, indices[i], revision)
		if err := s.r.Client.Create(s.ctx, vm); err != nil {
			return err
		}
		s.normal(reasonSuccessfulCreate, "Created VM %s/%s", vm.Namespace, vm.Name)
		return nil
	})
	if len(errs) > 0 {
		s.warn(reasonFailedCreate, "Error creating VM: %v", errs[0])
		return errs[0]
	}
	return nil
}

// proactiveScaleIn deletes surplus VMs, unless the scale-in strategy leaves
// that to others (unmanaged or opportunistic).
func (s *syncer) proactiveScaleIn(vms []*kubevirtv1.VirtualMachine, count int) error {
	if st := s.pool.Spec.ScaleInStrategy; st != nil && (st.Unmanaged != nil || st.Opportunistic != nil) {
		return nil
	}
	eligible := notDeleting(vms)
	_, err := s.scaleIn(eligible, count-(len(vms)-len(eligible)))
	return err
}

// opportunisticScaleIn lets VMs someone else deleted go, preserving their
// disks when the opportunistic strategy asks for it.
func (s *syncer) opportunisticScaleIn(vms []*kubevirtv1.VirtualMachine) error {
	st := s.pool.Spec.ScaleInStrategy
	if st != nil && st.Unmanaged != nil {
		return nil
	}
	preserve := st != nil && st.Opportunistic != nil && preserves(st.Opportunistic.StatePreservation)
	var last error
	for _, vm := range vms {
		if vm.DeletionTimestamp != nil {
			if err := s.releaseVM(vm, preserve); err != nil {
				last = err
			}
		}
	}
	return last
}

// scaleIn deletes count of vms, picked by the proactive selection policy.
// Upstream slices past the end when more VMs are already being deleted
// than count, or when the selectors leave fewer than count; both are
// clamped here. It returns how many VMs it deleted or tried to.
func (s *syncer) scaleIn(vms []*kubevirtv1.VirtualMachine, count int) (int, error) {
	eligible := notDeleting(vms)
	count -= len(vms) - len(eligible)
	if count <= 0 || len(eligible) == 0 {
		return 0, nil
	}
	policy := s.scaleInPolicy()
	sortVMs(eligible, sortPolicyOf(policy))
	eligible, err := filterBySelectors(eligible, policy)
	if err != nil {
		return 0, err
	}
	doomed := eligible[:min(count, len(eligible))]
	preserve := s.preservesOnScaleIn()
	errs := parallel(len(doomed), func(i int) error {
		return s.deleteVM(doomed[i], preserve)
	})
	if len(errs) > 0 {
		return len(doomed), errs[0]
	}
	return len(doomed), nil
}

// deleteVM deletes one VM of a scale-in and lets it go.
func (s *syncer) deleteVM(vm *kubevirtv1.VirtualMachine, preserve bool) error {
	if err := s.r.Client.Delete(s.ctx, vm); err != nil {
		s.warn(reasonFailedDelete, "Error deleting virtual machine %s/%s: %v", vm.Namespace, vm.Name, err)
		return err
	}
	var failure error
	if err := s.releaseVM(vm, preserve); err != nil {
		s.warn(reasonFailedUpdateVM, "Error preserving state of VM %s/%s: %v", vm.Namespace, vm.Name, err)
		failure = err
	}
	s.normal(reasonSuccessfulDelete, "Deleted VM %s/%s with uid %v from pool", vm.Namespace, vm.Name, vm.UID)
	return failure
}

func (s *syncer) scaleInPolicy() *poolv1.VirtualMachinePoolSelectionPolicy {
	if st := s.pool.Spec.ScaleInStrategy; st != nil && st.Proactive != nil {
		return st.Proactive.SelectionPolicy
	}
	return nil
}

func (s *syncer) preservesOnScaleIn() bool {
	st := s.pool.Spec.ScaleInStrategy
	return st != nil && st.Proactive != nil && preserves(st.Proactive.StatePreservation)
}

// preserves tells whether a statePreservation keeps disks; Offline and
// Online do the same here, as upstream.
func preserves(p *poolv1.StatePreservation) bool {
	return p != nil && *p != poolv1.StatePreservationDisabled
}

func notDeleting(vms []*kubevirtv1.VirtualMachine) []*kubevirtv1.VirtualMachine {
	var out []*kubevirtv1.VirtualMachine
	for _, vm := range vms {
		if vm.DeletionTimestamp == nil {
			out = append(out, vm)
		}
	}
	return out
}

// parallel runs fn for 0..n-1 concurrently, as upstream bursts its
// creations and deletions, and returns the errors in index order.
func parallel(n int, fn func(i int) error) []error {
	results := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = fn(i)
		}()
	}
	wg.Wait()
	var errs []error
	for _, err := range results {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
