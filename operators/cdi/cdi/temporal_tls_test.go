package cdi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/virtflow/virtflow/kube/workloads"
)

func TestCDIDeploymentDialsTemporalAsItself(t *testing.T) {
	in := install
	in.TemporalTLS = &workloads.TemporalTLS{ServerName: "temporal.example"}
	objs, err := in.Render(context.Background(), nil, cr(), "cdi-deployment")
	require.NoError(t, err)
	pod := byKind(objs)["Deployment/cdi-deployment"].(*appsv1.Deployment).Spec.Template.Spec
	require.Len(t, pod.Volumes, 1)
	require.Equal(t, "virtflow-temporal-cdi-deployment", pod.Volumes[0].Secret.SecretName)
	require.Contains(t, pod.Containers[0].Command, "--temporal-tls-server-name=temporal.example")

	objs, err = install.Render(context.Background(), nil, cr(), "cdi-deployment")
	require.NoError(t, err)
	require.Empty(t, byKind(objs)["Deployment/cdi-deployment"].(*appsv1.Deployment).Spec.Template.Spec.Volumes, "a plaintext Temporal needs no Secret")
}
