package workloads

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/temporalauth"
)

func TestAComponentDialsTemporalWithItsIdentitysSecretOnly(t *testing.T) {
	c := Container("img", "virt-handler", "virt-handler", []string{"--temporal-address=10.0.0.1:7233"})
	require.Nil(t, TemporalClient(&c, nil, temporalauth.NodeWorker), "a plaintext Temporal mounts nothing")
	require.NotContains(t, c.Command, "--temporal-tls-cert=/etc/virtflow/temporal/tls.crt")

	vols := TemporalClient(&c, &TemporalTLS{ServerName: "temporal.example"}, temporalauth.NodeWorker)
	require.Len(t, vols, 1)
	require.Equal(t, "virtflow-temporal-node-worker", vols[0].Secret.SecretName)
	require.Equal(t, []corev1.KeyToPath{{Key: "tls.crt", Path: "tls.crt"}, {Key: "tls.key", Path: "tls.key"}, {Key: "ca.crt", Path: "ca.crt"}}, vols[0].Secret.Items)
	require.Contains(t, c.VolumeMounts, corev1.VolumeMount{Name: TemporalTLSVolume, MountPath: "/etc/virtflow/temporal", ReadOnly: true})
	for _, arg := range []string{"--temporal-tls-cert=/etc/virtflow/temporal/tls.crt", "--temporal-tls-key=/etc/virtflow/temporal/tls.key",
		"--temporal-tls-ca=/etc/virtflow/temporal/ca.crt", "--temporal-tls-server-name=temporal.example"} {
		require.Contains(t, c.Command, arg)
	}
}
