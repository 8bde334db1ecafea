package vmpool

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

const poolFinalizer = poolv1.VirtualMachinePoolControllerFinalizer

type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// testAndReplace replaces a list only if it still holds what was read, so
// a concurrent writer's change is never overwritten; unlike a
// resourceVersion check it survives unrelated changes such as a deletion
// timestamp set a moment earlier.
func testAndReplace(path string, old, next any) (client.Patch, error) {
	data, err := json.Marshal([]patchOp{{Op: "test", Path: path, Value: old}, {Op: "replace", Path: path, Value: next}})
	if err != nil {
		return nil, fmt.Errorf("encoding patch of %s: %w", path, err)
	}
	return client.RawPatch(types.JSONPatchType, data), nil
}

// addPoolFinalizer keeps the pool until its VMs' finalizers are removed.
// Upstream's patch replaces the finalizer list with its own finalizer
// alone; this keeps the others.
func (s *syncer) addPoolFinalizer() error {
	if controllerutil.ContainsFinalizer(s.pool, poolFinalizer) {
		return nil
	}
	base := s.pool.DeepCopy()
	controllerutil.AddFinalizer(s.pool, poolFinalizer)
	if err := s.r.Client.Patch(s.ctx, s.pool, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("adding finalizer to pool %s/%s: %w", s.pool.Namespace, s.pool.Name, err))
	}
	return nil
}

// removeVMFinalizer lets a VM the pool deleted, or that is leaving the
// pool, go away.
func (s *syncer) removeVMFinalizer(vm *kubevirtv1.VirtualMachine) error {
	if !controllerutil.ContainsFinalizer(vm, poolFinalizer) {
		return nil
	}
	p, err := testAndReplace("/metadata/finalizers", vm.Finalizers, without(vm.Finalizers, poolFinalizer))
	if err != nil {
		return err
	}
	if err := s.r.Client.Patch(s.ctx, vm, p); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing pool finalizer from VirtualMachine %s/%s: %w", vm.Namespace, vm.Name, err)
	}
	return nil
}

// handleDeletion removes the pool finalizer from its VMs, then from the
// pool; the garbage collector then deletes VMs and revisions through their
// owner references. Upstream picks VMs by labels alone; a VM another
// controller owns is left alone here.
func (s *syncer) handleDeletion() error {
	list := &kubevirtv1.VirtualMachineList{}
	if err := s.r.reader().List(s.ctx, list, client.InNamespace(s.pool.Namespace)); err != nil {
		return fmt.Errorf("listing VirtualMachines of deleted pool %s: %w", s.pool.Name, err)
	}
	for i := range list.Items {
		vm := &list.Items[i]
		if ref := metav1.GetControllerOf(vm); ref != nil && ref.UID != s.pool.UID {
			continue
		}
		if !s.selector.Matches(labels.Set(vm.Labels)) {
			continue
		}
		if err := s.removeVMFinalizer(vm); err != nil {
			return err
		}
	}
	if !controllerutil.ContainsFinalizer(s.pool, poolFinalizer) {
		return nil
	}
	base := s.pool.DeepCopy()
	controllerutil.RemoveFinalizer(s.pool, poolFinalizer)
	if err := s.r.Client.Patch(s.ctx, s.pool, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("removing finalizer from pool %s/%s: %w", s.pool.Namespace, s.pool.Name, err))
	}
	return nil
}

// releaseVM removes the pool finalizer from a VM leaving the pool; with
// state preservation its claims and DataVolumes are first freed from the
// VM, so deleting the VM keeps its disks.
func (s *syncer) releaseVM(vm *kubevirtv1.VirtualMachine, preserve bool) error {
	if preserve {
		if err := s.freeClaims(vm); err != nil {
			s.warn(reasonFailedUpdateVM, "Error removing PVC owner references for VM %s/%s: %v", vm.Namespace, vm.Name, err)
			return err
		}
		if err := s.freeDataVolumes(vm); err != nil {
			s.warn(reasonFailedUpdateVM, "Error removing DataVolume owner references for VM %s/%s: %v", vm.Namespace, vm.Name, err)
			return err
		}
	}
	if err := s.removeVMFinalizer(vm); err != nil {
		s.warn(reasonFailedUpdateVM, "Error removing finalizer for VM %s/%s: %v", vm.Namespace, vm.Name, err)
		return err
	}
	return nil
}

// freeClaims drops the VM's owner reference from the claims its
// DataVolume templates create and the claims its volumes name.
func (s *syncer) freeClaims(vm *kubevirtv1.VirtualMachine) error {
	names := dataVolumeTemplateNames(vm)
	for _, v := range templateVolumes(vm) {
		if v.PersistentVolumeClaim != nil {
			names[v.PersistentVolumeClaim.ClaimName] = true
		}
	}
	for name := range names {
		if err := s.freeFromVM(&corev1.PersistentVolumeClaim{}, vm, name); err != nil {
			return fmt.Errorf("failed to remove owner reference from PVC %s: %w", name, err)
		}
	}
	return nil
}

// freeDataVolumes does the same for DataVolumes.
func (s *syncer) freeDataVolumes(vm *kubevirtv1.VirtualMachine) error {
	names := dataVolumeTemplateNames(vm)
	for _, v := range templateVolumes(vm) {
		if v.DataVolume != nil {
			names[v.DataVolume.Name] = true
		}
	}
	for name := range names {
		if err := s.freeFromVM(&cdiv1.DataVolume{}, vm, name); err != nil {
			return fmt.Errorf("failed to remove owner reference from DataVolume %s: %w", name, err)
		}
	}
	return nil
}

// freeFromVM removes the VM's owner references from obj when the VM
// controls it; a missing object is skipped.
func (s *syncer) freeFromVM(obj client.Object, vm *kubevirtv1.VirtualMachine, name string) error {
	err := s.r.reader().Get(s.ctx, client.ObjectKey{Namespace: vm.Namespace, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !metav1.IsControlledBy(obj, vm) {
		return nil
	}
	refs := []metav1.OwnerReference{}
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID != vm.UID {
			refs = append(refs, ref)
		}
	}
	p, err := testAndReplace("/metadata/ownerReferences", obj.GetOwnerReferences(), refs)
	if err != nil {
		return err
	}
	return s.r.Client.Patch(s.ctx, obj, p)
}

func dataVolumeTemplateNames(vm *kubevirtv1.VirtualMachine) map[string]bool {
	names := map[string]bool{}
	for _, t := range vm.Spec.DataVolumeTemplates {
		names[t.Name] = true
	}
	return names
}

func templateVolumes(vm *kubevirtv1.VirtualMachine) []kubevirtv1.Volume {
	if vm.Spec.Template == nil {
		return nil
	}
	return vm.Spec.Template.Spec.Volumes
}
