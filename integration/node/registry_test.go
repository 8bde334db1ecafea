//go:build integration

package node

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/kubenode"
)

// pushImage builds img and pushes it to the registry its name says, over
// HTTP.
func pushImage(t *testing.T, img images.Image) {
	t.Helper()
	built, err := img.Build()
	require.NoError(t, err)
	ref, err := name.ParseReference(img.Ref, name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, built))
}

// An image pushed to the node's registry is pulled by the kubelet through
// containerd, by the registry's name, as on any cluster.
func TestAnImagePushedToTheNodeRegistryIsPulledForAPod(t *testing.T) {
	ctx := context.Background()
	img := busybox()
	img.Ref = env.node.RegistryAddress() + "/test/pushed:1"
	// A layer of its own makes a digest nothing on the node has yet.
	img.Layers = append(img.Layers, []images.Entry{{Path: "/etc/pushed", Data: []byte(t.Name() + "\n"), Mode: 0o644}})
	pushImage(t, img)

	var err error
	pod := runPodFrom(t, "pulled", kubenode.RegistryName+"/test/pushed:1", "cat /etc/pushed; exec sleep 3600")
	require.Equal(t, kubenode.RegistryName+"/test/pushed:1", pod.Status.ContainerStatuses[0].Image)
	var logs []byte
	require.Eventually(t, func() bool {
		logs, err = env.cs.CoreV1().Pods("default").GetLogs("pulled", &corev1.PodLogOptions{}).DoRaw(ctx)
		return err == nil && len(logs) > 0
	}, 30*time.Second, 200*time.Millisecond)
	require.Equal(t, t.Name()+"\n", string(logs))

	events, err := env.cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=pulled,reason=Pulled"})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	require.True(t, strings.HasPrefix(events.Items[0].Message, "Successfully pulled image"), events.Items[0].Message)
}
