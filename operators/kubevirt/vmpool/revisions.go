package vmpool

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// revisionName names the ControllerRevision holding the pool spec of the
// pool's current generation.
func revisionName(pool *poolv1.VirtualMachinePool) string {
	return fmt.Sprintf("%s-%d", pool.Name, pool.Generation)
}

// ensureRevision records the current pool spec, so later updates can tell
// what a VM or VMI was built from.
func (s *syncer) ensureRevision() (string, error) {
	name := revisionName(s.pool)
	if _, ok, err := s.revision(name); err != nil || ok {
		return name, err
	}
	data, err := json.Marshal(&s.pool.Spec)
	if err != nil {
		return "", fmt.Errorf("encoding spec of pool %s: %w", s.pool.Name, err)
	}
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.pool.Namespace, OwnerReferences: []metav1.OwnerReference{ownerRef(s.pool)}},
		Data:       runtime.RawExtension{Raw: data},
		Revision:   s.pool.Generation,
	}
	if err := s.r.Client.Create(s.ctx, cr); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating revision %s: %w", name, err)
	}
	s.revs[name] = s.pool.Spec.DeepCopy()
	return name, nil
}

// revision is the pool spec a revision holds; ok is false when it does
// not exist. Each revision is read once per reconcile.
func (s *syncer) revision(name string) (*poolv1.VirtualMachinePoolSpec, bool, error) {
	if s.revs == nil {
		s.revs = map[string]*poolv1.VirtualMachinePoolSpec{}
	}
	if spec, ok := s.revs[name]; ok {
		return spec, spec != nil, nil
	}
	cr := &appsv1.ControllerRevision{}
	err := s.r.reader().Get(s.ctx, client.ObjectKey{Namespace: s.pool.Namespace, Name: name}, cr)
	if apierrors.IsNotFound(err) {
		s.revs[name] = nil
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading revision %s: %w", name, err)
	}
	spec := &poolv1.VirtualMachinePoolSpec{}
	if err := json.Unmarshal(cr.Data.Raw, spec); err != nil {
		return nil, false, fmt.Errorf("decoding revision %s: %w", name, err)
	}
	s.revs[name] = spec
	return spec, true, nil
}

// vmi is the VMI of a VM, nil when it has none. The namespace's VMIs are
// listed once per reconcile.
func (s *syncer) vmi(vm *kubevirtv1.VirtualMachine) (*kubevirtv1.VirtualMachineInstance, error) {
	if s.vmis == nil {
		list := &kubevirtv1.VirtualMachineInstanceList{}
		if err := s.r.reader().List(s.ctx, list, client.InNamespace(s.pool.Namespace)); err != nil {
			return nil, fmt.Errorf("listing VirtualMachineInstances in %s: %w", s.pool.Namespace, err)
		}
		s.vmis = map[string]*kubevirtv1.VirtualMachineInstance{}
		for i := range list.Items {
			s.vmis[list.Items[i].Name] = &list.Items[i]
		}
	}
	return s.vmis[vm.Name], nil
}

// pruneRevisions deletes the pool's revisions no VM and no VMI of the pool
// is labelled with.
func (s *syncer) pruneRevisions(vms []*kubevirtv1.VirtualMachine) *syncError {
	list := &appsv1.ControllerRevisionList{}
	if err := s.r.reader().List(s.ctx, list, client.InNamespace(s.pool.Namespace)); err != nil {
		return failed(reasonFailedRevisionPruning, "error while pruning vmpool revisions: %w", err)
	}
	used := map[string]bool{}
	for _, vm := range vms {
		used[vm.Labels[kubevirtv1.VirtualMachinePoolRevisionName]] = true
		vmi, err := s.vmi(vm)
		if err != nil {
			return failed(reasonFailedRevisionPruning, "error while pruning vmpool revisions: %w", err)
		}
		if vmi != nil {
			used[vmi.Labels[kubevirtv1.VirtualMachinePoolRevisionName]] = true
		}
	}
	for i := range list.Items {
		cr := &list.Items[i]
		if ref := metav1.GetControllerOf(cr); ref == nil || ref.UID != s.pool.UID || used[cr.Name] {
			continue
		}
		if err := s.r.Client.Delete(s.ctx, cr); err != nil && !apierrors.IsNotFound(err) {
			return failed(reasonFailedRevisionPruning, "error while pruning vmpool revisions: %w", err)
		}
	}
	return nil
}
