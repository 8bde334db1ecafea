//go:build integration

package integration

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/components/componentoperator"
	"github.com/virtflow/virtflow/embedded/platform"
)

// manifestsAreTheClusters checks that `virtflow up` runs the control worker
// from deploy/embedded as a Ready pod of the components image, and that
// deploy/cluster, the same base with a registry image and an external
// Temporal, passes the API server's dry run as kubectl applies it.
func manifestsAreTheClusters(t *testing.T, c crclient.Client, dataDir string) {
	pod := labelledPods(t, c, "app.kubernetes.io/name", "virtflow-worker")["virtflow-worker"]
	image := pod.Spec.Containers[0].Image
	require.True(t, strings.HasPrefix(image, platform.ComponentsRepository+":"), image)
	require.True(t, *pod.Spec.Containers[0].SecurityContext.RunAsNonRoot)
	for name, op := range labelledPods(t, c, "name", componentoperator.Names...) {
		require.Equal(t, image, op.Spec.Containers[0].Image, "%s runs the components image", name)
	}

	out, err := kubectlAt(dataDir, "apply", "-k", "../deploy/cluster", "--dry-run=server", "--server-side", "--force-conflicts", "--field-manager=dry-run").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "deployment.apps/virtflow-worker serverside-applied (server dry run)")
	require.Contains(t, string(out), "customresourcedefinition.apiextensions.k8s.io/virtualmachines.kubevirt.io serverside-applied (server dry run)")
	require.Contains(t, string(out), "deployment.apps/virt-operator serverside-applied (server dry run)")
}
