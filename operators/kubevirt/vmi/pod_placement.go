package vmi

import (
	"path"
	"strings"

	"github.com/virtflow/virtflow/wire/launcherpod"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// place copies what the VMI says about where and as whom its pod runs,
// as upstream's pod template does: host name and subdomain (so a headless
// Service gives the VM a DNS name), DNS, priority, spread, the secrets
// its images are pulled with, and the CPU manager's nodes for dedicated
// CPUs.
func place(pod *corev1.Pod, vmi *kubevirtv1.VirtualMachineInstance) {
	s := &pod.Spec
	s.Hostname = hostname(vmi)
	s.Subdomain = vmi.Spec.Subdomain
	s.DNSConfig = vmi.Spec.DNSConfig
	s.DNSPolicy = vmi.Spec.DNSPolicy
	s.PriorityClassName = vmi.Spec.PriorityClassName
	s.TopologySpreadConstraints = vmi.Spec.TopologySpreadConstraints
	s.ImagePullSecrets = pullSecrets(vmi)
	s.ServiceAccountName = vmi.Spec.ServiceAccountName
	for _, c := range vmi.Spec.ResourceClaims {
		s.ResourceClaims = append(s.ResourceClaims, corev1.PodResourceClaim{
			Name: c.Name, ResourceClaimName: c.ResourceClaimName, ResourceClaimTemplateName: c.ResourceClaimTemplateName,
		})
	}
	if dedicated(vmi) {
		s.NodeSelector[kubevirtv1.CPUManager] = "true"
	}
	hugepagesVolume(pod, vmi)
	s.Containers[0].ReadinessProbe = podProbe(vmi.Spec.ReadinessProbe)
	s.Containers[0].LivenessProbe = podProbe(vmi.Spec.LivenessProbe)
	if c := consoleLog(vmi, corev1.VolumeMount{Name: launcherpod.PrivateVolume, MountPath: launcherpod.PrivateDir}); c != nil {
		s.InitContainers = append(s.InitContainers, *c)
		// kubectl logs and exec mean the compute container, as upstream.
		pod.Annotations["kubectl.kubernetes.io/default-container"] = s.Containers[0].Name
	}
}

// hostname is the VMI's name up to its first dot, cut to a DNS label, or
// spec.hostname.
func hostname(vmi *kubevirtv1.VirtualMachineInstance) string {
	if vmi.Spec.Hostname != "" {
		return vmi.Spec.Hostname
	}
	name := strings.Split(vmi.Name, ".")[0]
	if len(name) > validation.DNS1123LabelMaxLength {
		name = name[:validation.DNS1123LabelMaxLength]
	}
	return name
}

// pullSecrets are the container disks' and the kernel image's pull
// secrets, each once.
func pullSecrets(vmi *kubevirtv1.VirtualMachineInstance) []corev1.LocalObjectReference {
	var names []string
	for _, v := range vmi.Spec.Volumes {
		if v.ContainerDisk != nil && v.ContainerDisk.ImagePullSecret != "" {
			names = append(names, v.ContainerDisk.ImagePullSecret)
		}
	}
	if c := kernelBootContainer(vmi); c != nil && c.ImagePullSecret != "" {
		names = append(names, c.ImagePullSecret)
	}
	var out []corev1.LocalObjectReference
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, corev1.LocalObjectReference{Name: n})
		}
	}
	return out
}

func dedicated(vmi *kubevirtv1.VirtualMachineInstance) bool {
	return vmi.Spec.Domain.CPU != nil && vmi.Spec.Domain.CPU.DedicatedCPUPlacement
}

// guaranteed gives a VMI with dedicated CPUs the Guaranteed QoS class the
// kubelet's static CPU manager pins CPUs for: a whole CPU per vCPU (and
// one for the emulator thread when isolated), limits equal to requests.
func guaranteed(vmi *kubevirtv1.VirtualMachineInstance, r *corev1.ResourceRequirements) {
	if !dedicated(vmi) {
		return
	}
	n := vcpuCount(vmi)
	if vmi.Spec.Domain.CPU.IsolateEmulatorThread {
		n++
	}
	cpus := *resource.NewQuantity(n, resource.DecimalSI)
	r.Requests[corev1.ResourceCPU] = cpus
	if r.Limits == nil {
		r.Limits = corev1.ResourceList{}
	}
	r.Limits[corev1.ResourceCPU] = cpus
	r.Limits[corev1.ResourceMemory] = r.Requests[corev1.ResourceMemory]
}

// hugepages requests the guest's memory as huge pages of its page size,
// request and limit alike as the kubelet wants them, so the scheduler
// places the VMI only where a node has them.
func hugepages(vmi *kubevirtv1.VirtualMachineInstance, r *corev1.ResourceRequirements) {
	m := vmi.Spec.Domain.Memory
	if m == nil || m.Hugepages == nil || m.Hugepages.PageSize == "" {
		return
	}
	// The same guest memory podMemory counted, now taken back out.
	guest, _ := guestMemory(vmi)
	name := corev1.ResourceName(corev1.ResourceHugePagesPrefix + m.Hugepages.PageSize)
	r.Requests[name] = guest
	if r.Limits == nil {
		r.Limits = corev1.ResourceList{}
	}
	r.Limits[name] = guest
	// The guest's memory comes from the huge pages: the memory request
	// keeps only the launcher's overhead, as upstream's.
	mem := r.Requests[corev1.ResourceMemory]
	mem.Sub(guest)
	r.Requests[corev1.ResourceMemory] = mem
	if l, ok := r.Limits[corev1.ResourceMemory]; ok {
		l.Sub(guest)
		r.Limits[corev1.ResourceMemory] = l
	}
}

// hugepagesVolume gives the launcher hugetlbfs at /dev/hugepages, where
// libvirt backs the guest's memory, as upstream's pods mount it.
func hugepagesVolume(pod *corev1.Pod, vmi *kubevirtv1.VirtualMachineInstance) {
	if m := vmi.Spec.Domain.Memory; m == nil || m.Hugepages == nil {
		return
	}
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "hugepages", VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumHugePages},
	}})
	c := &pod.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "hugepages", MountPath: "/dev/hugepages"})
}

// consoleLog is upstream's guest-console-log container: it streams the
// guest's serial console log, so `kubectl logs -c guest-console-log`
// shows the boot. It is a native sidecar, as upstream's: the kubelet
// starts it before the launcher and stops it after, so the log keeps the
// guest's last words and the pod still completes with the VM. A VMI turns
// it off with logSerialConsole: false; one without a serial console has
// nothing to stream. Requests equal limits, so a Guaranteed launcher
// (dedicated CPUs) stays Guaranteed.
func consoleLog(vmi *kubevirtv1.VirtualMachineInstance, privateMount corev1.VolumeMount) *corev1.Container {
	d := vmi.Spec.Domain.Devices
	if (d.LogSerialConsole != nil && !*d.LogSerialConsole) || (d.AutoattachSerialConsole != nil && !*d.AutoattachSerialConsole) {
		return nil
	}
	no, always := false, corev1.ContainerRestartPolicyAlways
	privateMount.ReadOnly = true
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("15m"), corev1.ResourceMemory: resource.MustParse("60Mi")}
	return &corev1.Container{
		Name: consoleLogContainer, Image: launcherpod.Image, ImagePullPolicy: corev1.PullIfNotPresent, RestartPolicy: &always,
		Command:   []string{"tail", "-n", "+1", "-F", path.Join(launcherpod.PrivateDir, launcherpod.SerialLog)},
		Resources: corev1.ResourceRequirements{Requests: res, Limits: res},
		SecurityContext: &corev1.SecurityContext{
			Privileged: &no, AllowPrivilegeEscalation: &no,
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
		VolumeMounts: []corev1.VolumeMount{privateMount},
	}
}

// consoleLogContainer names the serial console's sidecar.
const consoleLogContainer = "guest-console-log"

// hostDevices requests each GPU's and host device's device-plugin
// resource, as upstream, so the VMI is placed only where a plugin offers
// them; without one its pod stays Pending with the scheduler's reason.
func hostDevices(vmi *kubevirtv1.VirtualMachineInstance, r *corev1.ResourceRequirements) {
	var names []string
	for _, g := range vmi.Spec.Domain.Devices.GPUs {
		names = append(names, g.DeviceName)
	}
	for _, h := range vmi.Spec.Domain.Devices.HostDevices {
		names = append(names, h.DeviceName)
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if r.Limits == nil {
			r.Limits = corev1.ResourceList{}
		}
		name := corev1.ResourceName(n)
		q := r.Requests[name]
		q.Add(resource.MustParse("1"))
		r.Requests[name], r.Limits[name] = q, q
	}
}

// libvirtStartupDelay is upstream's allowance, in seconds, for libvirt
// and the guest to start before the first probe.
const libvirtStartupDelay = 10

// podProbe turns a VMI's TCP or HTTP probe into the compute container's:
// the kubelet probes the pod's address, which reaches the guest. Exec and
// guest-agent probes are refused by virt-api.
func podProbe(p *kubevirtv1.Probe) *corev1.Probe {
	if p == nil || (p.TCPSocket == nil && p.HTTPGet == nil) {
		return nil
	}
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{TCPSocket: p.TCPSocket, HTTPGet: p.HTTPGet},
		// The guest starts after libvirt does, as upstream allows for.
		InitialDelaySeconds: p.InitialDelaySeconds + libvirtStartupDelay, TimeoutSeconds: p.TimeoutSeconds, PeriodSeconds: p.PeriodSeconds,
		SuccessThreshold: p.SuccessThreshold, FailureThreshold: p.FailureThreshold,
	}
}
