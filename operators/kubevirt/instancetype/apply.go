package instancetype

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
)

// Apply applies the instancetype (when not nil) and then the preference
// (when not nil and nothing conflicts) to spec, whose path is base
// (spec.template.spec for a VM, spec for a VMI), and meta, the template's
// or VMI's metadata. It returns every conflict, in upstream's order.
func Apply(base *field.Path, it *v1beta1.VirtualMachineInstancetypeSpec, pref *v1beta1.VirtualMachinePreferenceSpec,
	spec *kubevirtv1.VirtualMachineInstanceSpec, meta *metav1.ObjectMeta) Conflicts {
	if it != nil {
		var cs Conflicts
		cs = append(cs, applyScheduling(base, it, spec)...)
		cs = append(cs, applyCPU(base, it, pref, spec)...)
		cs = append(cs, applyMemory(base, it, spec)...)
		cs = append(cs, applyDevices(base, it, spec)...)
		cs = append(cs, applyAnnotations(it.Annotations, meta)...)
		if len(cs) > 0 {
			return cs
		}
	}
	if pref != nil {
		applyPreference(pref, spec, meta)
	}
	return nil
}

func applyScheduling(base *field.Path, it *v1beta1.VirtualMachineInstancetypeSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) Conflicts {
	var cs Conflicts
	if it.NodeSelector != nil {
		if spec.NodeSelector != nil {
			cs = append(cs, Conflict{base.Child("nodeSelector")})
		} else {
			spec.NodeSelector = copyMap(it.NodeSelector)
		}
	}
	if it.SchedulerName != "" {
		if spec.SchedulerName != "" {
			cs = append(cs, Conflict{base.Child("schedulerName")})
		} else {
			spec.SchedulerName = it.SchedulerName
		}
	}
	return cs
}

func applyCPU(base *field.Path, it *v1beta1.VirtualMachineInstancetypeSpec, pref *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) Conflicts {
	d := &spec.Domain
	if d.CPU == nil {
		d.CPU = &kubevirtv1.CPU{}
	}
	if cs := cpuConflicts(base, it, spec); len(cs) > 0 {
		return cs
	}
	c := it.CPU
	if c.Model != nil {
		d.CPU.Model = *c.Model
	}
	if c.DedicatedCPUPlacement != nil {
		d.CPU.DedicatedCPUPlacement = *c.DedicatedCPUPlacement
	}
	if c.IsolateEmulatorThread != nil {
		d.CPU.IsolateEmulatorThread = *c.IsolateEmulatorThread
	}
	if c.NUMA != nil {
		d.CPU.NUMA = c.NUMA.DeepCopy()
	}
	if c.Realtime != nil {
		d.CPU.Realtime = c.Realtime.DeepCopy()
	}
	if c.MaxSockets != nil {
		d.CPU.MaxSockets = *c.MaxSockets
	}
	setTopology(c.Guest, pref, d.CPU)
	return nil
}

// cpuConflicts reports every CPU field the VM sets that the instancetype
// owns: the topology and CPU resources always, the rest when both set it.
func cpuConflicts(base *field.Path, it *v1beta1.VirtualMachineInstancetypeSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) Conflicts {
	d, c := spec.Domain, it.CPU
	cpu := base.Child("domain", "cpu")
	var cs Conflicts
	add := func(set bool, p *field.Path) {
		if set {
			cs = append(cs, Conflict{p})
		}
	}
	_, req := d.Resources.Requests[corev1.ResourceCPU]
	_, lim := d.Resources.Limits[corev1.ResourceCPU]
	add(req, base.Child("domain", "resources", "requests", "cpu"))
	add(lim, base.Child("domain", "resources", "limits", "cpu"))
	add(d.CPU.Sockets != 0, cpu.Child("sockets"))
	add(d.CPU.Cores != 0, cpu.Child("cores"))
	add(d.CPU.Threads != 0, cpu.Child("threads"))
	add(d.CPU.Model != "" && c.Model != nil, cpu.Child("model"))
	add(d.CPU.DedicatedCPUPlacement && c.DedicatedCPUPlacement != nil, cpu.Child("dedicatedCPUPlacement"))
	add(d.CPU.IsolateEmulatorThread && c.IsolateEmulatorThread != nil, cpu.Child("isolateEmulatorThread"))
	add(d.CPU.NUMA != nil && c.NUMA != nil, cpu.Child("numa"))
	add(d.CPU.Realtime != nil && c.Realtime != nil, cpu.Child("realtime"))
	return cs
}

// setTopology lays the instancetype's vCPUs out as the preference says;
// sockets by default.
func setTopology(vcpus uint32, pref *v1beta1.VirtualMachinePreferenceSpec, cpu *kubevirtv1.CPU) {
	cpu.Sockets, cpu.Cores, cpu.Threads = 1, 1, 1
	if vcpus == 1 {
		return
	}
	switch PreferredTopology(pref) {
	case v1beta1.Cores, v1beta1.DeprecatedPreferCores:
		cpu.Cores = vcpus
	case v1beta1.Threads, v1beta1.DeprecatedPreferThreads:
		cpu.Threads = vcpus
	case v1beta1.Spread, v1beta1.DeprecatedPreferSpread:
		ratio, across := SpreadOptions(pref)
		if ratio == 0 {
			cpu.Sockets = vcpus
			return
		}
		switch across {
		case v1beta1.SpreadAcrossSocketsCores:
			cpu.Cores, cpu.Sockets = ratio, vcpus/ratio
		case v1beta1.SpreadAcrossCoresThreads:
			cpu.Threads, cpu.Cores = ratio, vcpus/ratio
		case v1beta1.SpreadAcrossSocketsCoresThreads:
			cpu.Threads, cpu.Cores, cpu.Sockets = 2, ratio, vcpus/2/ratio
		}
	default:
		cpu.Sockets = vcpus
	}
}

// PreferredTopology is the preference's CPU topology, sockets by default.
func PreferredTopology(pref *v1beta1.VirtualMachinePreferenceSpec) v1beta1.PreferredCPUTopology {
	if pref != nil && pref.CPU != nil && pref.CPU.PreferredCPUTopology != nil {
		return *pref.CPU.PreferredCPUTopology
	}
	return v1beta1.Sockets
}

// SpreadOptions is the preference's spread ratio and dimensions: 2 across
// sockets and cores unless it says otherwise.
func SpreadOptions(pref *v1beta1.VirtualMachinePreferenceSpec) (uint32, v1beta1.SpreadAcross) {
	ratio, across := uint32(2), v1beta1.SpreadAcrossSocketsCores
	if pref == nil {
		return ratio, across
	}
	if pref.PreferSpreadSocketToCoreRatio != 0 {
		ratio = pref.PreferSpreadSocketToCoreRatio
	}
	if pref.CPU != nil && pref.CPU.SpreadOptions != nil {
		if o := pref.CPU.SpreadOptions; o.Across != nil {
			across = *o.Across
		}
		if o := pref.CPU.SpreadOptions; o.Ratio != nil {
			ratio = *o.Ratio
		}
	}
	return ratio, across
}

func applyMemory(base *field.Path, it *v1beta1.VirtualMachineInstancetypeSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) Conflicts {
	d := &spec.Domain
	if d.Memory == nil {
		d.Memory = &kubevirtv1.Memory{}
	}
	if c := memoryConflict(base, it, spec); c != nil {
		return Conflicts{*c}
	}
	guest := it.Memory.Guest.DeepCopy()
	d.Memory.Guest = &guest
	if pct := it.Memory.OvercommitPercent; pct > 0 {
		if d.Resources.Requests == nil {
			d.Resources.Requests = corev1.ResourceList{}
		}
		req := int64(float32(guest.Value()) * (1 - float32(pct)/100))
		d.Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(req, guest.Format)
	}
	if it.Memory.Hugepages != nil {
		d.Memory.Hugepages = it.Memory.Hugepages.DeepCopy()
	}
	if it.Memory.MaxGuest != nil {
		m := it.Memory.MaxGuest.DeepCopy()
		d.Memory.MaxGuest = &m
	}
	return nil
}

// memoryConflict reports the first memory field the VM sets that the
// instancetype owns; upstream stops at the first.
func memoryConflict(base *field.Path, it *v1beta1.VirtualMachineInstancetypeSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) *Conflict {
	d := spec.Domain
	mem := base.Child("domain", "memory")
	_, req := d.Resources.Requests[corev1.ResourceMemory]
	_, lim := d.Resources.Limits[corev1.ResourceMemory]
	for _, c := range []struct {
		set  bool
		path *field.Path
	}{
		{d.Memory.Guest != nil, mem.Child("guest")},
		{d.Memory.Hugepages != nil && it.Memory.Hugepages != nil, mem.Child("hugepages")},
		{d.Memory.MaxGuest != nil && it.Memory.MaxGuest != nil, mem.Child("maxGuest")},
		{req, base.Child("domain", "resources", "requests", "memory")},
		{lim, base.Child("domain", "resources", "limits", "memory")},
	} {
		if c.set {
			return &Conflict{c.path}
		}
	}
	return nil
}

func applyDevices(base *field.Path, it *v1beta1.VirtualMachineInstancetypeSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) Conflicts {
	d := &spec.Domain
	var cs Conflicts
	if it.IOThreads != nil && it.IOThreads.SupplementalPoolThreadCount != nil {
		if d.IOThreads != nil && d.IOThreads.SupplementalPoolThreadCount != nil {
			cs = append(cs, Conflict{base.Child("domain", "ioThreads", "supplementalPoolThreadCount")})
		} else {
			n := *it.IOThreads.SupplementalPoolThreadCount
			if d.IOThreads == nil {
				d.IOThreads = &kubevirtv1.DiskIOThreads{}
			}
			d.IOThreads.SupplementalPoolThreadCount = &n
		}
	}
	if it.IOThreadsPolicy != nil {
		if d.IOThreadsPolicy != nil {
			cs = append(cs, Conflict{base.Child("domain", "ioThreadsPolicy")})
		} else {
			p := *it.IOThreadsPolicy
			d.IOThreadsPolicy = &p
		}
	}
	if it.LaunchSecurity != nil {
		if d.LaunchSecurity != nil {
			cs = append(cs, Conflict{base.Child("domain", "launchSecurity")})
		} else {
			d.LaunchSecurity = it.LaunchSecurity.DeepCopy()
		}
	}
	if len(it.GPUs) > 0 {
		if len(d.Devices.GPUs) > 0 {
			cs = append(cs, Conflict{base.Child("domain", "devices", "gpus")})
		} else {
			d.Devices.GPUs = append([]kubevirtv1.GPU(nil), it.GPUs...)
		}
	}
	if len(it.HostDevices) > 0 {
		if len(d.Devices.HostDevices) > 0 {
			cs = append(cs, Conflict{base.Child("domain", "devices", "hostDevices")})
		} else {
			d.Devices.HostDevices = append([]kubevirtv1.HostDevice(nil), it.HostDevices...)
		}
	}
	return cs
}

// applyAnnotations adds the instancetype's annotations; a different value
// already there is a conflict, at upstream's path "annotations.<key>".
func applyAnnotations(annotations map[string]string, meta *metav1.ObjectMeta) Conflicts {
	if len(annotations) == 0 || meta == nil {
		return nil
	}
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	var cs Conflicts
	for _, k := range sortedKeys(annotations) {
		if have, ok := meta.Annotations[k]; ok {
			if have != annotations[k] {
				cs = append(cs, Conflict{field.NewPath("annotations", k)})
			}
			continue
		}
		meta.Annotations[k] = annotations[k]
	}
	return cs
}
