package operands

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// As HCO: one replica of each component on an infrastructure that is not
// highly available (or not measured yet), none asked for on one that is,
// and the placement carried either way.
func TestKubeVirtAsksForOneReplicaUnlessHighlyAvailable(t *testing.T) {
	hc := newHC()
	require.Equal(t, ptr.To(uint8(1)), desiredKubeVirt(hc).Spec.Infra.Replicas, "not measured yet")
	hc.Status.InfrastructureHighlyAvailable = ptr.To(false)
	kv := desiredKubeVirt(hc)
	require.Equal(t, ptr.To(uint8(1)), kv.Spec.Infra.Replicas)
	require.Equal(t, ptr.To(uint8(1)), kv.Spec.Workloads.Replicas)
	require.Nil(t, kv.Spec.Infra.NodePlacement)

	hc.Status.InfrastructureHighlyAvailable = ptr.To(true)
	require.Nil(t, desiredKubeVirt(hc).Spec.Infra)
	hc.Spec.Infra.NodePlacement = &hcov1beta1.NodePlacement{NodeSelector: map[string]string{corev1.LabelHostname: "n1"}}
	kv = desiredKubeVirt(hc)
	require.Nil(t, kv.Spec.Infra.Replicas)
	require.Equal(t, "n1", kv.Spec.Infra.NodePlacement.NodeSelector[corev1.LabelHostname])
}
