package vmi

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/kube/launchername"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// LauncherLabel value marks launcher pods under kubevirtv1.AppLabel.
const LauncherLabel = "virt-launcher"

// Overhead beside the guest's memory: libvirtd, virtlogd, qemu itself and
// the page tables, kept below upstream's ~243Mi because a session daemon
// per VM is all a launcher runs here.
var (
	staticOverhead = resource.MustParse("160Mi")
	perVCPU        = resource.MustParse("8Mi")
)

// LauncherPod is the pod virt-controller makes for vmi, with no block
// claims: the field-coverage test reads what the spec puts in it.
func LauncherPod(vmi *kubevirtv1.VirtualMachineInstance) (*corev1.Pod, error) {
	return launcherPod(vmi, nil)
}

// launcherPod is the pod that carries a VMI: the scheduler places it and
// the kubelet runs it (a simulated node's agent runs its launcher as a
// process instead). Claims named in block are mounted as devices.
func launcherPod(vmi *kubevirtv1.VirtualMachineInstance, block map[string]bool) (*corev1.Pod, error) {
	mem, err := podMemory(vmi)
	if err != nil {
		return nil, err
	}
	for _, v := range vmi.Spec.Volumes {
		if launcherpod.Reserved(v.Name) {
			return nil, fmt.Errorf("volume name %s is used by the launcher pod itself; rename the volume", v.Name)
		}
	}
	cpu := podCPU(vmi)
	yes, no := true, false
	user := int64(launcherpod.User)
	grace := int64(30)
	if vmi.Spec.TerminationGracePeriodSeconds != nil {
		grace = *vmi.Spec.TerminationGracePeriodSeconds + 15
	}
	selector := map[string]string{kubevirtv1.NodeSchedulable: "true"}
	for k, v := range vmi.Spec.NodeSelector {
		selector[k] = v
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        launcherPodName(vmi),
			Namespace:   vmi.Namespace,
			Labels:      podLabels(vmi),
			Annotations: map[string]string{kubevirtv1.DomainAnnotation: vmi.Name},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: kubevirtv1.GroupVersion.String(), Kind: "VirtualMachineInstance",
				Name: vmi.Name, UID: vmi.UID, Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			NodeSelector:                  selector,
			Affinity:                      vmi.Spec.Affinity,
			Tolerations:                   vmi.Spec.Tolerations,
			SchedulerName:                 vmi.Spec.SchedulerName,
			TerminationGracePeriodSeconds: &grace,
			AutomountServiceAccountToken:  &no,
			// libvirtd daemonizes, and so do its QEMU probes: the pod's
			// pause process, as PID 1 of a shared namespace, reaps them.
			ShareProcessNamespace: &yes,
			SecurityContext: &corev1.PodSecurityContext{
				RunAsUser: &user, RunAsGroup: &user, RunAsNonRoot: &yes,
			},
			Containers: []corev1.Container{{
				Name: "compute", Image: launcherpod.Image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: launcherpod.Command,
				// A launcher that dies says why in its log; the kubelet keeps
				// the tail as the termination message the VMI then carries.
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
				Resources:                podResources(vmi, mem, cpu),
				SecurityContext: &corev1.SecurityContext{
					Privileged: &no, AllowPrivilegeEscalation: &no,
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				VolumeMounts:  volumeMounts(vmi, block),
				VolumeDevices: volumeDevices(vmi, block),
			}},
			Volumes: podVolumes(vmi),
		},
	}
	place(pod, vmi)
	return pod, nil
}

// launcherPodName is the VMI's launcher pod name, seeded by its UID: a
// reconcile that does not see the pod it created a moment ago (its cache
// lags) gets AlreadyExists instead of starting a second launcher.
func launcherPodName(vmi *kubevirtv1.VirtualMachineInstance) string {
	return launchername.For(vmi.Name, string(vmi.UID))
}

// podMemory is the guest memory plus the launcher's overhead.
func podMemory(vmi *kubevirtv1.VirtualMachineInstance) (resource.Quantity, error) {
	guest, ok := guestMemory(vmi)
	if !ok {
		return guest, fmt.Errorf("VirtualMachineInstance %s/%s requests no memory", vmi.Namespace, vmi.Name)
	}
	// overcommitGuestOverhead asks for the guest's memory alone, the
	// launcher's own overhead left to the node's slack.
	if !vmi.Spec.Domain.Resources.OvercommitGuestOverhead {
		guest.Add(overhead(vmi))
	}
	return guest, nil
}

// guestMemory is the memory the VMI requests for its guest.
func guestMemory(vmi *kubevirtv1.VirtualMachineInstance) (resource.Quantity, bool) {
	switch d := vmi.Spec.Domain; {
	case d.Resources.Requests.Memory() != nil && !d.Resources.Requests.Memory().IsZero():
		return d.Resources.Requests.Memory().DeepCopy(), true
	case d.Memory != nil && d.Memory.Guest != nil:
		return d.Memory.Guest.DeepCopy(), true
	}
	return resource.Quantity{}, false
}

// overhead is what the launcher, libvirt and QEMU take besides the guest.
func overhead(vmi *kubevirtv1.VirtualMachineInstance) resource.Quantity {
	o := staticOverhead.DeepCopy()
	for i := int64(0); i < vcpuCount(vmi); i++ {
		o.Add(perVCPU)
	}
	return o
}

func podCPU(vmi *kubevirtv1.VirtualMachineInstance) resource.Quantity {
	if c := vmi.Spec.Domain.Resources.Requests.Cpu(); c != nil && !c.IsZero() {
		return c.DeepCopy()
	}
	// Upstream requests a tenth of a core per VMI unless told otherwise.
	return resource.MustParse("100m")
}

func vcpuCount(vmi *kubevirtv1.VirtualMachineInstance) int64 {
	c := vmi.Spec.Domain.CPU
	if c == nil {
		return 1
	}
	n := int64(1)
	for _, v := range []uint32{c.Sockets, c.Cores, c.Threads} {
		if v > 0 {
			n *= int64(v)
		}
	}
	return n
}

// TunResource is the device plugin resource a launcher needs to open its
// guest's tap devices.
const TunResource corev1.ResourceName = "devices.kubevirt.io/tun"

// podResources requests the guest's memory and CPU and, when the guest has
// an interface, the tun device, as upstream's launcher pods.
func podResources(vmi *kubevirtv1.VirtualMachineInstance, mem, cpu resource.Quantity) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: mem, corev1.ResourceCPU: cpu}}
	auto := vmi.Spec.Domain.Devices.AutoattachPodInterface
	if len(vmi.Spec.Domain.Devices.Interfaces) > 0 || auto == nil || *auto {
		one := resource.MustParse("1")
		r.Requests[TunResource] = one
		r.Limits = corev1.ResourceList{TunResource: one}
	}
	limits(vmi, &r)
	hugepages(vmi, &r)
	hostDevices(vmi, &r)
	guaranteed(vmi, &r)
	return r
}

// limits caps the pod at the VMI's CPU and memory limits, memory plus
// the launcher's overhead, as upstream.
func limits(vmi *kubevirtv1.VirtualMachineInstance, r *corev1.ResourceRequirements) {
	l := vmi.Spec.Domain.Resources.Limits
	if len(l) == 0 {
		return
	}
	if r.Limits == nil {
		r.Limits = corev1.ResourceList{}
	}
	if c, ok := l[corev1.ResourceCPU]; ok {
		r.Limits[corev1.ResourceCPU] = c
	}
	if m, ok := l[corev1.ResourceMemory]; ok {
		m = m.DeepCopy()
		m.Add(overhead(vmi))
		r.Limits[corev1.ResourceMemory] = m
	}
}

// podLabels are the VMI's own labels, which Services select, with the
// launcher's: upstream's virtctl expose selects vmi.kubevirt.io/id.
func podLabels(vmi *kubevirtv1.VirtualMachineInstance) map[string]string {
	l := map[string]string{}
	for k, v := range vmi.Labels {
		l[k] = v
	}
	l[kubevirtv1.AppLabel] = LauncherLabel
	l[kubevirtv1.CreatedByLabel] = string(vmi.UID)
	l["vm.kubevirt.io/name"] = vmi.Name
	l[kubevirtv1.VirtualMachineInstanceIDLabel] = launcherpod.InstanceID(vmi.Name)
	return l
}
