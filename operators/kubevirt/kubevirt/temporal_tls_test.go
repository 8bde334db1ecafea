package kubevirt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/virtflow/virtflow/kube/workloads"
)

func TestVirtHandlerDialsTemporalAsTheNodeWorker(t *testing.T) {
	in := install
	in.TemporalTLS = &workloads.TemporalTLS{}
	objs, err := in.Render(context.Background(), nil, owner(), "virt-handler")
	require.NoError(t, err)
	pod := objs[0].(*appsv1.DaemonSet).Spec.Template.Spec
	secrets := map[string]string{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secrets[v.Name] = v.Secret.SecretName
		}
	}
	require.Equal(t, "virtflow-temporal-node-worker", secrets[workloads.TemporalTLSVolume])
	require.Contains(t, pod.Containers[0].Command, "--temporal-tls-cert=/etc/virtflow/temporal/tls.crt")
}
