//go:build integration

package node

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runPod starts a busybox pod running command and waits until it runs.
func runPod(t *testing.T, name string, command string, labels map[string]string) *corev1.Pod {
	t.Helper()
	return startPod(t, name, "virtflow.local/busybox:1", command, labels)
}

// runPodFrom starts a pod from image running command and waits until it
// runs.
func runPodFrom(t *testing.T, name, image, command string) *corev1.Pod {
	t.Helper()
	return startPod(t, name, image, command, nil)
}

func startPod(t *testing.T, name, image, command string, labels map[string]string) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Image: image, Command: []string{"sh", "-c", command},
		}}},
	}
	_, err := env.cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		grace := int64(0)
		_ = env.cs.CoreV1().Pods("default").Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	})
	require.Eventually(t, func() bool {
		pod, err = env.cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		return err == nil && pod.Status.Phase == corev1.PodRunning && pod.Status.PodIP != ""
	}, 2*time.Minute, 300*time.Millisecond)
	return pod
}

func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := kubectlOutput(args...)
	require.NoError(t, err, out)
	return out
}

// kubectlOutput runs kubectl as the admin and returns its standard output,
// or with an error, its standard error too.
func kubectlOutput(args ...string) (string, error) {
	cmd := exec.Command(env.kubectl, append([]string{"--kubeconfig", env.cp.KubeconfigPath()}, args...)...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return string(out), err
}

// A killed kubelet and containerd come back; the pod's container, which
// belongs to its shim, runs on untouched, and containerd finds it again.
func TestKillingTheKubeletAndContainerdLeavesPodsRunning(t *testing.T) {
	ctx := context.Background()
	before := runPod(t, "survivor", "exec sleep 3600", nil)
	// The container's first process, by its start time (field 22).
	startedBefore := kubectl(t, "exec", "survivor", "--", "cut", "-d", " ", "-f", "22", "/proc/1/stat")
	for _, name := range []string{"kubelet", "containerd"} {
		pid := env.node.PID(name)
		require.NotZero(t, pid, name)
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		require.Eventually(t, func() bool {
			now := env.node.PID(name)
			return now != 0 && now != pid
		}, time.Minute, 100*time.Millisecond, "%s is started again", name)
	}
	require.NoError(t, env.node.WaitReady(ctx, env.cs))
	// The Node may still be Ready from before; exec answers once the new
	// kubelet serves.
	var startedAfter string
	require.Eventually(t, func() bool {
		var err error
		startedAfter, err = kubectlOutput("exec", "survivor", "--", "cut", "-d", " ", "-f", "22", "/proc/1/stat")
		return err == nil
	}, time.Minute, 500*time.Millisecond)
	require.Equal(t, startedBefore, startedAfter, "the same process, not a restarted one")
	after, err := env.cs.CoreV1().Pods("default").Get(ctx, "survivor", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, corev1.PodRunning, after.Status.Phase)
	require.Equal(t, before.Status.ContainerStatuses[0].ContainerID, after.Status.ContainerStatuses[0].ContainerID)
	require.Zero(t, after.Status.ContainerStatuses[0].RestartCount)
}
