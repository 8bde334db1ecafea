//go:build integration

package node

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The launcher's base image runs libvirt in session mode and QEMU in an
// unprivileged pod: a non-root user, no privilege escalation, no
// capabilities.
func TestTheLauncherBaseRunsLibvirtAndQEMUAsANonRootUser(t *testing.T) {
	ctx := context.Background()
	base := launcherBase(t)

	nobody, no := int64(65534), false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "launcher-base", Namespace: "default"},
		Spec: corev1.PodSpec{
			// libvirtd daemonizes and so do its QEMU capability probes: the
			// orphans need a PID 1 that reaps them, or libvirtd waits for
			// their zombies to go away. The pod's pause process does.
			ShareProcessNamespace: &[]bool{true}[0],
			SecurityContext:       &corev1.PodSecurityContext{RunAsUser: &nobody, RunAsGroup: &nobody, RunAsNonRoot: &[]bool{true}[0]},
			Containers: []corev1.Container{{
				Name: "compute", Image: base,
				Command: []string{"sleep", "3600"},
				Env:     []corev1.EnvVar{{Name: "HOME", Value: "/tmp/home"}},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: &no, Privileged: &no,
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
	_, err := env.cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		grace := int64(0)
		_ = env.cs.CoreV1().Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	})
	require.Eventually(t, func() bool {
		p, err := env.cs.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning
	}, 2*time.Minute, 300*time.Millisecond)

	require.Equal(t, "65534\n", kubectl(t, "exec", pod.Name, "--", "id", "-u"))
	// virsh starts the session daemon, which probes the QEMU binary.
	version := kubectl(t, "exec", pod.Name, "--", "sh", "-c", "mkdir -p $HOME && virsh -c qemu:///session version")
	require.Contains(t, version, "Running hypervisor: QEMU 7.2.")
	procs := kubectl(t, "exec", pod.Name, "--", "ps", "-o", "user=,comm=", "-C", "libvirtd")
	require.Equal(t, "nobody   libvirtd\n", procs, "libvirtd runs as the pod's user")
	zombies := kubectl(t, "exec", pod.Name, "--", "ps", "-e", "-o", "stat=,comm=")
	require.NotContains(t, zombies, "Z", "every exited probe was reaped:\n%s", zombies)
}
