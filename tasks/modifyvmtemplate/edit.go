package modifyvmtemplate

import (
	"encoding/json"
	"errors"
	"fmt"

	templatev1 "github.com/openshift/api/template/v1"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// applyToTemplate adds the labels and annotations to the template and
// replaces (by name) or adds its parameters, after dropping them all when
// asked.
func (o *options) applyToTemplate(tpl *templatev1.Template) {
	tpl.Labels = withEntries(tpl.Labels, o.templateLabels)
	tpl.Annotations = withEntries(tpl.Annotations, o.templateAnnotations)
	if o.deleteParameters {
		tpl.Parameters = []templatev1.Parameter{}
	}
	tpl.Parameters = upsert(tpl.Parameters, o.parameters, func(p templatev1.Parameter) string { return p.Name })
}

// applyToVM edits the template's first VirtualMachine and stores it back.
func (o *options) applyToVM(tpl *templatev1.Template) error {
	vm, i, err := firstVM(tpl)
	if err != nil {
		return err
	}
	if vm.Spec.Template == nil {
		return fmt.Errorf("the VirtualMachine of template %s has no spec.template", tpl.Name)
	}
	vm.Labels = withEntries(vm.Labels, o.vmLabels)
	vm.Annotations = withEntries(vm.Annotations, o.vmAnnotations)
	o.applySizing(&vm.Spec.Template.Spec.Domain)
	o.applyStorage(vm)
	raw, err := json.Marshal(vm)
	if err != nil {
		return fmt.Errorf("encoding the VirtualMachine of template %s: %w", tpl.Name, err)
	}
	tpl.Objects[i].Raw, tpl.Objects[i].Object = raw, nil
	return nil
}

// applySizing sets the CPU topology counts given (not 0) and the memory
// request. Like upstream it leaves an empty cpu behind when it had none.
func (o *options) applySizing(domain *kubevirtv1.DomainSpec) {
	if domain.CPU == nil {
		domain.CPU = &kubevirtv1.CPU{}
	}
	if o.cpuSockets > 0 {
		domain.CPU.Sockets = o.cpuSockets
	}
	if o.cpuCores > 0 {
		domain.CPU.Cores = o.cpuCores
	}
	if o.cpuThreads > 0 {
		domain.CPU.Threads = o.cpuThreads
	}
	if o.memory != nil {
		if domain.Resources.Requests == nil {
			domain.Resources.Requests = corev1.ResourceList{}
		}
		domain.Resources.Requests[corev1.ResourceMemory] = *o.memory
	}
}

// applyStorage drops what is asked dropped, then replaces (by name) or adds
// the data volume templates, disks and volumes given.
func (o *options) applyStorage(vm *kubevirtv1.VirtualMachine) {
	spec := &vm.Spec.Template.Spec
	if o.deleteDisks {
		spec.Domain.Devices.Disks = []kubevirtv1.Disk{}
	}
	if o.deleteVolumes {
		spec.Volumes = []kubevirtv1.Volume{}
	}
	if o.deleteDataVolumes {
		dropDataVolumeTemplates(vm)
	}
	vm.Spec.DataVolumeTemplates = upsert(vm.Spec.DataVolumeTemplates, o.dataVolumeTemplates,
		func(d kubevirtv1.DataVolumeTemplateSpec) string { return d.Name })
	spec.Domain.Devices.Disks = upsert(spec.Domain.Devices.Disks, o.disks, func(d kubevirtv1.Disk) string { return d.Name })
	spec.Volumes = upsert(spec.Volumes, o.volumes, func(v kubevirtv1.Volume) string { return v.Name })
}

// dropDataVolumeTemplates drops the VM's data volume templates with the
// volumes that use them and those volumes' disks.
func dropDataVolumeTemplates(vm *kubevirtv1.VirtualMachine) {
	templated := map[string]bool{}
	for _, dv := range vm.Spec.DataVolumeTemplates {
		templated[dv.Name] = true
	}
	spec := &vm.Spec.Template.Spec
	dropped := map[string]bool{}
	volumes := []kubevirtv1.Volume{}
	for _, v := range spec.Volumes {
		if v.DataVolume != nil && templated[v.DataVolume.Name] {
			dropped[v.Name] = true
			continue
		}
		volumes = append(volumes, v)
	}
	spec.Volumes = volumes
	disks := []kubevirtv1.Disk{}
	for _, d := range spec.Domain.Devices.Disks {
		if !dropped[d.Name] {
			disks = append(disks, d)
		}
	}
	spec.Domain.Devices.Disks = disks
	vm.Spec.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{}
}

// upsert replaces every item of list named as one of added by it, and
// appends the added items that replaced none.
func upsert[T any](list, added []T, name func(T) string) []T {
	for _, a := range added {
		replaced := false
		for i := range list {
			if name(list[i]) == name(a) {
				list[i] = a
				replaced = true
			}
		}
		if !replaced {
			list = append(list, a)
		}
	}
	return list
}

// withEntries is m with added's entries; nil stays nil when nothing is added.
func withEntries(m, added map[string]string) map[string]string {
	if m == nil && len(added) > 0 {
		m = make(map[string]string, len(added))
	}
	for k, v := range added {
		m[k] = v
	}
	return m
}

// errNoVM is upstream's text for a template without a VirtualMachine.
var errNoVM = errors.New("no VM object found in the template")
