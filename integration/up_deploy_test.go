//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/commands/componentoperator"
	"github.com/virtflow/virtflow/embedded/platform"
)

// manifestsAreTheClusters checks that `virtflow up` runs hco-operator,
// hco-webhook, the component operators and the control worker from
// deploy/embedded as Ready pods of the components image, that hco-webhook's
// pod answers for HyperConverged admission and hostpath-provisioner-operator's
// for HostPathProvisioner admission, and that
// deploy/cluster, the same base with a registry image and an external
// Temporal, passes the API server's dry run as kubectl applies it.
func manifestsAreTheClusters(t *testing.T, c crclient.Client, dataDir string) {
	pod := labelledPods(t, c, "app.kubernetes.io/name", "virtflow-worker")["virtflow-worker"]
	image := pod.Spec.Containers[0].Image
	require.True(t, strings.HasPrefix(image, platform.ComponentsRepository+":"), image)
	require.True(t, *pod.Spec.Containers[0].SecurityContext.RunAsNonRoot)
	names := append([]string{"hco-operator", "hco-webhook"}, componentoperator.Names...)
	pods := labelledPods(t, c, "name", names...)
	for _, name := range names {
		require.Equal(t, image, pods[name].Spec.Containers[0].Image, "%s runs the components image", name)
	}
	shortCA := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: platform.Namespace, Name: "short-ca"}}
	shortCA.Spec.CertConfig.CA.Duration = &metav1.Duration{Duration: time.Minute}
	denied := c.Create(context.Background(), shortCA, crclient.DryRunAll)
	require.ErrorContains(t, denied, `admission webhook "validate-hco-v1beta1.kubevirt.io" denied the request`, "hco-webhook's pod answers")
	require.ErrorContains(t, denied, "spec.certConfig.ca.duration: value is too small")
	noPools := &hppv1beta1.HostPathProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "no-pools"}}
	denied = c.Create(context.Background(), noPools, crclient.DryRunAll)
	require.ErrorContains(t, denied, `admission webhook "validate-hostpath-provisioner.kubevirt.io" denied the request: either pathConfig or storage pools must be set`,
		"hostpath-provisioner-operator's pod answers")

	out, err := kubectlAt(dataDir, "apply", "-k", "../deploy/cluster", "--dry-run=server", "--server-side", "--force-conflicts", "--field-manager=dry-run").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "deployment.apps/virtflow-worker serverside-applied (server dry run)")
	require.Contains(t, string(out), "customresourcedefinition.apiextensions.k8s.io/virtualmachines.kubevirt.io serverside-applied (server dry run)")
	require.Contains(t, string(out), "deployment.apps/virt-operator serverside-applied (server dry run)")
	require.Contains(t, string(out), "deployment.apps/hyperconverged-cluster-cli-download serverside-applied (server dry run)")
}
