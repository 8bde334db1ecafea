package vmpool

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
)

// vmName is the name of the pool's VM at index idx.
func vmName(pool string, idx int) string {
	return fmt.Sprintf("%s-%d", pool, idx)
}

// freeIndices returns the count lowest indices whose name <pool>-<i> no
// VM in the namespace holds, whoever owns it, so gaps are refilled first.
func freeIndices(pool string, count int, taken map[string]bool) []int {
	idx := make([]int, 0, count)
	for i := 0; len(idx) < count; i++ {
		if !taken[vmName(pool, i)] {
			idx = append(idx, i)
		}
	}
	return idx
}

// indexFromName parses the index after the last dash of a VM name.
func indexFromName(name string) (int, error) {
	parts := strings.Split(name, "-")
	idx, err := strconv.Atoi(parts[len(parts)-1])
	if err != nil {
		return 0, fmt.Errorf("VM name %q does not end in a pool index: %w", name, err)
	}
	return idx, nil
}

// ownerRef makes the pool the VM's (and revision's) controller, always in
// the stored version so the garbage collector finds it.
func ownerRef(pool *poolv1.VirtualMachinePool) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion: poolv1.SchemeGroupVersion.String(), Kind: poolv1.VirtualMachinePoolKind,
		Name: pool.Name, UID: pool.UID, Controller: &yes, BlockOwnerDeletion: &yes,
	}
}

// indexVMSpec is the template spec for the VM at idx: each VM gets its own
// DataVolumes, and, when the pool asks for it, its own ConfigMaps and
// Secrets, by appending -<idx> to their names.
func indexVMSpec(spec *poolv1.VirtualMachinePoolSpec, idx int) *kubevirtv1.VirtualMachineSpec {
	vm := spec.VirtualMachineTemplate.Spec.DeepCopy()
	suffix := "-" + strconv.Itoa(idx)
	renamed := map[string]string{}
	for i := range vm.DataVolumeTemplates {
		n := vm.DataVolumeTemplates[i].Name
		renamed[n] = n + suffix
		vm.DataVolumeTemplates[i].Name = n + suffix
	}
	if vm.Template == nil {
		return vm
	}
	cms, secrets := nameGeneration(spec.NameGeneration)
	for i := range vm.Template.Spec.Volumes {
		indexVolume(&vm.Template.Spec.Volumes[i].VolumeSource, renamed, suffix, cms, secrets)
	}
	return vm
}

func nameGeneration(g *poolv1.VirtualMachinePoolNameGeneration) (configMaps, secrets bool) {
	if g == nil {
		return false, false
	}
	return g.AppendIndexToConfigMapRefs != nil && *g.AppendIndexToConfigMapRefs,
		g.AppendIndexToSecretRefs != nil && *g.AppendIndexToSecretRefs
}

// indexVolume renames what one volume refers to; only claims and
// DataVolumes that a DataVolume template creates are renamed, a
// pre-existing claim is shared by every VM.
func indexVolume(v *kubevirtv1.VolumeSource, renamed map[string]string, suffix string, cms, secrets bool) {
	switch {
	case v.PersistentVolumeClaim != nil:
		if n, ok := renamed[v.PersistentVolumeClaim.ClaimName]; ok {
			v.PersistentVolumeClaim.ClaimName = n
		}
	case v.DataVolume != nil:
		if n, ok := renamed[v.DataVolume.Name]; ok {
			v.DataVolume.Name = n
		}
	case v.ConfigMap != nil && cms:
		v.ConfigMap.Name += suffix
	case v.Secret != nil && secrets:
		v.Secret.SecretName += suffix
	case v.CloudInitNoCloud != nil && secrets:
		indexSecretRefs(v.CloudInitNoCloud.UserDataSecretRef, v.CloudInitNoCloud.NetworkDataSecretRef, suffix)
	case v.CloudInitConfigDrive != nil && secrets:
		indexSecretRefs(v.CloudInitConfigDrive.UserDataSecretRef, v.CloudInitConfigDrive.NetworkDataSecretRef, suffix)
	}
}

func indexSecretRefs(user, network *corev1.LocalObjectReference, suffix string) {
	for _, ref := range []*corev1.LocalObjectReference{user, network} {
		if ref != nil {
			ref.Name += suffix
		}
	}
}

// vmFor builds the VM at index idx from the pool's template: the
// template's labels and annotations and nothing else of its metadata.
func vmFor(pool *poolv1.VirtualMachinePool, idx int, revision string) *kubevirtv1.VirtualMachine {
	vm := &kubevirtv1.VirtualMachine{
		TypeMeta: metav1.TypeMeta{APIVersion: kubevirtv1.GroupVersion.String(), Kind: "VirtualMachine"},
		ObjectMeta: metav1.ObjectMeta{
			Name: vmName(pool.Name, idx), Namespace: pool.Namespace,
			Labels:          maps.Clone(pool.Spec.VirtualMachineTemplate.ObjectMeta.Labels),
			Annotations:     maps.Clone(pool.Spec.VirtualMachineTemplate.ObjectMeta.Annotations),
			Finalizers:      []string{poolv1.VirtualMachinePoolControllerFinalizer},
			OwnerReferences: []metav1.OwnerReference{ownerRef(pool)},
		},
		Spec: *indexVMSpec(&pool.Spec, idx),
	}
	setRevision(vm, revision)
	return vm
}

// setRevision labels the VM and its VMI template with the pool revision
// they were built from; the update strategy compares it.
func setRevision(vm *kubevirtv1.VirtualMachine, revision string) {
	if vm.Labels == nil {
		vm.Labels = map[string]string{}
	}
	vm.Labels[kubevirtv1.VirtualMachinePoolRevisionName] = revision
	if vm.Spec.Template == nil {
		return
	}
	if vm.Spec.Template.ObjectMeta.Labels == nil {
		vm.Spec.Template.ObjectMeta.Labels = map[string]string{}
	}
	vm.Spec.Template.ObjectMeta.Labels[kubevirtv1.VirtualMachinePoolRevisionName] = revision
}
