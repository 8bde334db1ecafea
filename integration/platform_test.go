//go:build integration

package integration

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/embedded/platform"
)

// TestUpThenUpAgainResumes checks `virtflow up` as a user runs it: a real
// node whose kubelet runs every component and a VM's launcher as pods. It
// stops it with SIGINT (the VM keeps running) and runs it again on the same
// data directory (the same HyperConverged and VM are there); the suite's
// end purges the node (no VM is left).
func TestUpThenUpAgainResumes(t *testing.T) {
	n := onNode(t)
	c := n.c
	kubeVirtComponentsArePods(t, c, n.dataDir)
	hostpathCSIIsAPod(t, c)
	manifestsAreTheClusters(t, c, n.dataDir)
	cdiComponentsArePods(t, c, n.dataDir)
	createUpVMI(t, c)
	consoleAndPauseCrossThePods(t, c, n.dataDir)
	launcherRunsUnprivileged(t, c, n.dataDir)
	claimDiskReachesTheGuest(t, c, n.dataDir, serveGuestDisk(t, n.guest))

	first := &hcov1beta1.HyperConverged{}
	require.NoError(t, c.Get(context.Background(), hcKey(), first))
	qemu := qemuOf("default_upvm")
	require.NotEmpty(t, qemu)
	require.NoError(t, n.stop())
	require.Equal(t, qemu, qemuOf("default_upvm"), "the VM outlives the platform's stop")
	require.NoError(t, n.start())
	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: "default", Name: "upvm"}, vmi))
	require.Equal(t, kubevirtv1.Running, vmi.Status.Phase)
	require.Equal(t, qemu, qemuOf("default_upvm"), "the same QEMU runs the VM after the restart")
	require.Equal(t, string(first.UID), n.hcUID, "the HyperConverged survived the restart")
}

// createUpVMI boots the test guest from the node registry's containerDisk.
func createUpVMI(t *testing.T, c crclient.Client) {
	vmi := &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "upvm"},
		Spec:       kernelBootSpec(kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: guestImage}}),
	}
	require.NoError(t, c.Create(context.Background(), vmi))
	require.Eventually(t, func() bool {
		return c.Get(context.Background(), crclient.ObjectKeyFromObject(vmi), vmi) == nil && vmi.Status.Phase == kubevirtv1.Running
	}, 3*time.Minute, 500*time.Millisecond, "the VMI did not run: %+v", vmi.Status)
}

// kernelBootSpec boots the test guest's kernel from its image with root
// as the only disk.
func kernelBootSpec(root kubevirtv1.VolumeSource) kubevirtv1.VirtualMachineInstanceSpec {
	mem := resource.MustParse("256Mi")
	return kubevirtv1.VirtualMachineInstanceSpec{
		Domain: kubevirtv1.DomainSpec{
			Memory: &kubevirtv1.Memory{Guest: &mem},
			Firmware: &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{KernelArgs: "console=ttyS0",
				Container: &kubevirtv1.KernelBootContainer{Image: guestImage, KernelPath: "/boot/vmlinuz", InitrdPath: "/boot/initramfs.img"}}},
			Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "root",
				DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}}}}},
		},
		Volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: root}},
	}
}

// serveGuestDisk serves the guest's disk on the node's bridge, where the
// import, which runs in virt-handler's pod, reaches the host; the bridge
// exists once `virtflow up` runs.
func serveGuestDisk(t *testing.T, guest string) string {
	l, err := net.Listen("tcp", net.JoinHostPort(platform.NodeBridge.Address.Addr().String(), "0"))
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(guest)))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/disk.raw"
}

// claimDiskReachesTheGuest imports the guest's disk into a DataVolume and
// boots a VM from the claim, which the kubelet mounts into the launcher pod
// through the hostpath CSI driver: the guest finds its disk.
func claimDiskReachesTheGuest(t *testing.T, c crclient.Client, dataDir, url string) {
	ctx := context.Background()
	size := resource.MustParse("64Mi")
	running := kubevirtv1.RunStrategyAlways
	vm := &kubevirtv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "dvvm"},
		Spec: kubevirtv1.VirtualMachineSpec{
			RunStrategy: &running,
			DataVolumeTemplates: []kubevirtv1.DataVolumeTemplateSpec{{
				ObjectMeta: metav1.ObjectMeta{Name: "dvvm-root"},
				Spec: cdiv1.DataVolumeSpec{
					Source:  &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}},
					Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}}},
				},
			}},
			Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
				Spec: kernelBootSpec(kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "dvvm-root"}}),
			},
		},
	}
	require.NoError(t, c.Create(ctx, vm))
	var serial string
	require.Eventually(t, func() bool {
		pod := launcherOf(t, c, "dvvm")
		if pod == nil {
			return false
		}
		out, _ := kubectlAt(dataDir, "exec", "-n", "default", pod.Name, "--", "cat", "/var/run/kubevirt-private/serial.log").CombinedOutput()
		serial = string(out)
		return strings.Contains(serial, guestReady)
	}, 4*time.Minute, time.Second, "the guest did not boot from its claim:\n%s", serial)
	require.Contains(t, serial, guestDiskOK, "the guest read the imported disk")
	require.NoError(t, c.Delete(ctx, vm))
}

// launcherOf is the running launcher pod of a VMI, nil when there is none.
func launcherOf(t *testing.T, c crclient.Client, vmi string) *corev1.Pod {
	pods := &corev1.PodList{}
	require.NoError(t, c.List(context.Background(), pods, crclient.InNamespace("default"), crclient.MatchingLabels{"vm.kubevirt.io/name": vmi}))
	for i := range pods.Items {
		if pods.Items[i].Status.Phase == corev1.PodRunning {
			return &pods.Items[i]
		}
	}
	return nil
}

// kubectlAt is the pinned kubectl on the cluster of a data directory.
func kubectlAt(dataDir string, args ...string) *exec.Cmd {
	return exec.Command(filepath.Join(env.kubeBinDir, "kubectl"), append([]string{"--kubeconfig", filepath.Join(dataDir, "kubernetes", "kubeconfig")}, args...)...)
}

// launcherRunsUnprivileged checks the launcher pod the kubelet runs: a
// non-root user without capabilities, and QEMU and libvirtd inside it as
// that user.
func launcherRunsUnprivileged(t *testing.T, c crclient.Client, dataDir string) {
	pod := launcherOf(t, c, "upvm")
	require.NotNil(t, pod)
	require.NotEmpty(t, pod.Status.PodIP, "a real pod has an address on the pod network")
	require.Equal(t, int64(65534), *pod.Spec.SecurityContext.RunAsUser)
	sc := pod.Spec.Containers[0].SecurityContext
	require.False(t, *sc.Privileged)
	require.False(t, *sc.AllowPrivilegeEscalation)
	out, err := kubectlAt(dataDir, "exec", "-n", "default", pod.Name, "--", "ps", "-o", "user=,comm=", "-C", "qemu-system-x86_64,libvirtd").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.ElementsMatch(t, []string{"nobody libvirtd", "nobody qemu-system-x86"}, strings.Split(normalise(out), "\n"))
}

// normalise is ps output with one space between columns.
func normalise(out []byte) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}

// qemuOf is the pid of the QEMU running the named domain, "" when none.
func qemuOf(domain string) string {
	out, _ := exec.Command("pgrep", "-f", "guest="+domain+",").Output()
	return strings.TrimSpace(string(out))
}
