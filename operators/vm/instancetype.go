package vm

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kinds an instancetype or preference matcher may name; cluster-wide is the
// default, as upstream.
const (
	clusterInstancetypeKind = "VirtualMachineClusterInstancetype"
	instancetypeKind        = "VirtualMachineInstancetype"
	clusterPreferenceKind   = "VirtualMachineClusterPreference"
	preferenceKind          = "VirtualMachinePreference"
)

// expand applies the VM's instancetype (which owns CPU and memory) and
// preference (which fills what the VM leaves unset) to the new VMI.
func expand(ctx context.Context, c client.Client, vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance) error {
	if m := vm.Spec.Instancetype; m != nil {
		spec, err := instancetypeSpec(ctx, c, vm.Namespace, m)
		if err != nil {
			return err
		}
		if err := applyInstancetype(spec, &vmi.Spec, preferredTopology(ctx, c, vm)); err != nil {
			return err
		}
	}
	if m := vm.Spec.Preference; m != nil {
		spec, err := preferenceSpec(ctx, c, vm.Namespace, m)
		if err != nil {
			return err
		}
		applyPreference(spec, &vmi.Spec)
	}
	return nil
}

// kindOf resolves a matcher's kind as upstream does: the Kind or its
// singular or plural resource name, in any case; empty means cluster-wide.
func kindOf(kind, cluster, namespaced string) string {
	k := strings.ToLower(kind)
	for _, want := range []string{cluster, namespaced} {
		if w := strings.ToLower(want); k == w || k == w+"s" {
			return want
		}
	}
	if k == "" {
		return cluster
	}
	return kind
}

func instancetypeSpec(ctx context.Context, c client.Client, ns string, m *kubevirtv1.InstancetypeMatcher) (*instancetypev1beta1.VirtualMachineInstancetypeSpec, error) {
	switch kindOf(m.Kind, clusterInstancetypeKind, instancetypeKind) {
	case clusterInstancetypeKind:
		it := &instancetypev1beta1.VirtualMachineClusterInstancetype{}
		if err := c.Get(ctx, types.NamespacedName{Name: m.Name}, it); err != nil {
			return nil, fmt.Errorf("failed to find VirtualMachineClusterInstancetype %s: %w", m.Name, err)
		}
		return &it.Spec, nil
	case instancetypeKind:
		it := &instancetypev1beta1.VirtualMachineInstancetype{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: m.Name}, it); err != nil {
			return nil, fmt.Errorf("failed to find VirtualMachineInstancetype %s/%s: %w", ns, m.Name, err)
		}
		return &it.Spec, nil
	}
	return nil, fmt.Errorf("got unexpected kind in InstancetypeMatcher: %s", m.Kind)
}

func preferenceSpec(ctx context.Context, c client.Client, ns string, m *kubevirtv1.PreferenceMatcher) (*instancetypev1beta1.VirtualMachinePreferenceSpec, error) {
	switch kindOf(m.Kind, clusterPreferenceKind, preferenceKind) {
	case clusterPreferenceKind:
		p := &instancetypev1beta1.VirtualMachineClusterPreference{}
		if err := c.Get(ctx, types.NamespacedName{Name: m.Name}, p); err != nil {
			return nil, fmt.Errorf("failed to find VirtualMachineClusterPreference %s: %w", m.Name, err)
		}
		return &p.Spec, nil
	case preferenceKind:
		p := &instancetypev1beta1.VirtualMachinePreference{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: m.Name}, p); err != nil {
			return nil, fmt.Errorf("failed to find VirtualMachinePreference %s/%s: %w", ns, m.Name, err)
		}
		return &p.Spec, nil
	}
	return nil, fmt.Errorf("got unexpected kind in PreferenceMatcher: %s", m.Kind)
}

func preferredTopology(ctx context.Context, c client.Client, vm *kubevirtv1.VirtualMachine) instancetypev1beta1.PreferredCPUTopology {
	if vm.Spec.Preference == nil {
		return instancetypev1beta1.Sockets
	}
	p, err := preferenceSpec(ctx, c, vm.Namespace, vm.Spec.Preference)
	if err != nil || p.CPU == nil || p.CPU.PreferredCPUTopology == nil {
		return instancetypev1beta1.Sockets
	}
	return *p.CPU.PreferredCPUTopology
}

// applyInstancetype sets CPU and memory from the instancetype; the VM may
// not set them itself, as upstream enforces.
func applyInstancetype(it *instancetypev1beta1.VirtualMachineInstancetypeSpec, spec *kubevirtv1.VirtualMachineInstanceSpec, topo instancetypev1beta1.PreferredCPUTopology) error {
	d := &spec.Domain
	if d.CPU != nil && (d.CPU.Sockets != 0 || d.CPU.Cores != 0 || d.CPU.Threads != 0) {
		return fmt.Errorf("VM field(s) spec.template.spec.domain.cpu conflicts with selected instance type")
	}
	if d.Memory != nil && d.Memory.Guest != nil {
		return fmt.Errorf("VM field(s) spec.template.spec.domain.memory.guest conflicts with selected instance type")
	}
	cpu := &kubevirtv1.CPU{Sockets: 1, Cores: 1, Threads: 1}
	switch topo {
	case instancetypev1beta1.Cores, instancetypev1beta1.DeprecatedPreferCores:
		cpu.Cores = it.CPU.Guest
	case instancetypev1beta1.Threads, instancetypev1beta1.DeprecatedPreferThreads:
		cpu.Threads = it.CPU.Guest
	default:
		cpu.Sockets = it.CPU.Guest
	}
	if it.CPU.Model != nil {
		cpu.Model = *it.CPU.Model
	}
	if it.CPU.DedicatedCPUPlacement != nil {
		cpu.DedicatedCPUPlacement = *it.CPU.DedicatedCPUPlacement
	}
	d.CPU = cpu
	guest := it.Memory.Guest.DeepCopy()
	d.Memory = &kubevirtv1.Memory{Guest: &guest, Hugepages: it.Memory.Hugepages}
	return nil
}

// applyPreference fills only what the VM left unset.
func applyPreference(p *instancetypev1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	d := &spec.Domain
	if p.Machine != nil && p.Machine.PreferredMachineType != "" && (d.Machine == nil || d.Machine.Type == "") {
		d.Machine = &kubevirtv1.Machine{Type: p.Machine.PreferredMachineType}
	}
	if p.Devices == nil {
		return
	}
	for i := range d.Devices.Disks {
		disk := &d.Devices.Disks[i]
		switch {
		case disk.CDRom != nil && disk.CDRom.Bus == "" && p.Devices.PreferredCdromBus != "":
			disk.CDRom.Bus = p.Devices.PreferredCdromBus
		case disk.CDRom == nil && disk.LUN == nil && p.Devices.PreferredDiskBus != "":
			if disk.Disk == nil {
				disk.Disk = &kubevirtv1.DiskTarget{}
			}
			if disk.Disk.Bus == "" {
				disk.Disk.Bus = p.Devices.PreferredDiskBus
			}
		}
	}
	for i := range d.Devices.Interfaces {
		if d.Devices.Interfaces[i].Model == "" && p.Devices.PreferredInterfaceModel != "" {
			d.Devices.Interfaces[i].Model = p.Devices.PreferredInterfaceModel
		}
	}
}
