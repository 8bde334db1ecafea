package rollout

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestADeploymentIsRolledOutWhenItsLatestSpecIsReady(t *testing.T) {
	two := int32(2)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 3}, Spec: appsv1.DeploymentSpec{Replicas: &two}}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 2, UpdatedReplicas: 2, ReadyReplicas: 2}
	require.Equal(t, "spec not observed yet", DeploymentPending(d))
	d.Status.ObservedGeneration, d.Status.UpdatedReplicas = 3, 1
	require.Equal(t, "1 of 2 replicas updated", DeploymentPending(d))
	d.Status.UpdatedReplicas, d.Status.ReadyReplicas = 2, 1
	require.Equal(t, "1 of 2 replicas ready", DeploymentPending(d))
	d.Status.ReadyReplicas = 2
	require.Empty(t, DeploymentPending(d))
}

func TestDaemonSetPendingWantsANodeAndEveryPodReady(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Generation: 2}}
	ds.Status.ObservedGeneration = 1
	require.Equal(t, "spec not observed yet", DaemonSetPending(ds))
	ds.Status.ObservedGeneration = 2
	require.Equal(t, "no node to run on", DaemonSetPending(ds))
	ds.Status.DesiredNumberScheduled, ds.Status.UpdatedNumberScheduled = 2, 1
	require.Equal(t, "1 of 2 pods updated", DaemonSetPending(ds))
	ds.Status.UpdatedNumberScheduled, ds.Status.NumberReady = 2, 1
	require.Equal(t, "1 of 2 pods ready", DaemonSetPending(ds))
	ds.Status.NumberReady = 2
	require.Empty(t, DaemonSetPending(ds))
}
