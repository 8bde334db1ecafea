//go:build integration

package node

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheNodeIsReadyOnContainerdWithItsBridgeAddress(t *testing.T) {
	n, err := env.cs.CoreV1().Nodes().Get(context.Background(), nodeName, metav1.GetOptions{})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(n.Status.NodeInfo.ContainerRuntimeVersion, "containerd://2."), n.Status.NodeInfo.ContainerRuntimeVersion)
	require.Equal(t, "v1.37.2", n.Status.NodeInfo.KubeletVersion)
	var internal string
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			internal = a.Address
		}
	}
	require.Equal(t, env.bridge.Address.Addr().String(), internal)
}

func TestAPodRunsAndItsLogsAndExecWork(t *testing.T) {
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "hello", Image: "virtflow.local/busybox:1",
			Command: []string{"sh", "-c", "echo hello from $(hostname); sleep 3600"},
		}}},
	}
	_, err := env.cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		grace := int64(0)
		_ = env.cs.CoreV1().Pods("default").Delete(ctx, "hello", metav1.DeleteOptions{GracePeriodSeconds: &grace})
	})
	require.Eventually(t, func() bool {
		p, err := env.cs.CoreV1().Pods("default").Get(ctx, "hello", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning && p.Status.PodIP != ""
	}, 2*time.Minute, 500*time.Millisecond)
	var logs []byte
	require.Eventually(t, func() bool {
		logs, err = env.cs.CoreV1().Pods("default").GetLogs("hello", &corev1.PodLogOptions{}).DoRaw(ctx)
		return err == nil && len(logs) > 0
	}, 30*time.Second, 200*time.Millisecond)
	require.Equal(t, "hello from hello\n", string(logs))

	out, err := exec.Command(env.kubectl, "--kubeconfig", env.cp.KubeconfigPath(), "exec", "hello", "--", "id", "-u").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "0\n", string(out))
}

// TestPurgePutsBackWhatTheNodeAgentSetForPostCopy changes the setting a
// node's agent turns on for a migration that allows post-copy; TestMain
// finds it back as it was once the node is purged.
func TestPurgePutsBackWhatTheNodeAgentSetForPostCopy(t *testing.T) {
	key := "/proc/sys/vm/unprivileged_userfaultfd"
	was, err := os.ReadFile(key)
	require.NoError(t, err)
	flipped := "1"
	if strings.TrimSpace(string(was)) == "1" {
		flipped = "0"
	}
	require.NoError(t, os.WriteFile(key, []byte(flipped), 0o644))
}
