//go:build integration

package node

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/kubenode"
	"github.com/virtflow/virtflow/embedded/platform"
)

// launcherBase imports the launcher's base image (once; a second import
// finds it) and returns its name.
func launcherBase(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("../../hack/launcher-base.sh").Output()
	require.NoError(t, err)
	base := images.Image{Ref: "virtflow.local/launcher-base:test", BaseTars: []string{strings.TrimSpace(string(out))}}
	require.NoError(t, env.node.ImportImage(context.Background(), base))
	return base.Ref
}

// pushTestGuest publishes the test guest as a containerDisk image to the
// node's registry, as virtflow up does, and returns its name there.
func pushTestGuest(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("../../hack/mkguest.sh").Output()
	require.NoError(t, err)
	require.NoError(t, platform.PushTestGuest(strings.TrimSpace(string(out)), env.node.RegistryPushAddress(), env.registry))
	return kubenode.RegistryName + "/" + platform.TestGuestImage
}

// guestQEMU boots the test guest from dir on the serial console.
func guestQEMU(dir string) []string {
	return []string{"qemu-system-x86_64", "-accel", "tcg", "-m", "256", "-nographic", "-no-reboot",
		"-kernel", dir + "/boot/vmlinuz", "-initrd", dir + "/boot/initramfs.img", "-append", "console=ttyS0",
		"-drive", "file=" + dir + "/disk/disk.raw,format=raw,if=virtio,readonly=on"}
}

// guestPod runs QEMU on the test guest as uid 65534 without capabilities,
// the containerDisk mounted by the kubelet as an image volume.
func guestPod(name, base, disk string) *corev1.Pod {
	nobody, no, yes := int64(65534), false, true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsUser: &nobody, RunAsGroup: &nobody, RunAsNonRoot: &yes},
			Containers: []corev1.Container{{
				Name: "compute", Image: base, Command: guestQEMU("/guest"),
				// An open stdin: at EOF on its console the guest's shell
				// would exit, and the guest with it.
				Stdin: true,
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: &no,
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "containerdisk", MountPath: "/guest", ReadOnly: true}},
			}},
			Volumes: []corev1.Volume{{Name: "containerdisk", VolumeSource: corev1.VolumeSource{
				Image: &corev1.ImageVolumeSource{Reference: disk, PullPolicy: corev1.PullIfNotPresent},
			}}},
		},
	}
}

// The test guest boots in an unprivileged pod under QEMU from a
// containerDisk the kubelet pulled from the node's registry and mounted as
// an image volume.
func TestTheTestGuestBootsInAPodFromAContainerDisk(t *testing.T) {
	ctx := context.Background()
	pod := guestPod("guest", launcherBase(t), pushTestGuest(t))
	_, err := env.cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		grace := int64(0)
		_ = env.cs.CoreV1().Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	})
	var logs string
	require.Eventually(t, func() bool {
		raw, err := env.cs.CoreV1().Pods("default").GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		logs = string(raw)
		return err == nil && strings.Contains(logs, "VIRTFLOW-GUEST-READY")
	}, 3*time.Minute, time.Second, "guest console:\n%s", logs)
	require.Contains(t, logs, "VIRTFLOW-DISK-OK", "the guest read the containerDisk")
	require.Equal(t, "nobody   qemu-system-x86\n", kubectl(t, "exec", pod.Name, "--", "ps", "-o", "user=,comm=", "-C", "qemu-system-x86_64"))
}
