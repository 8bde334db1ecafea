package virt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
)

func TestTheTargetPodIsTheSourcesKeptAwayFromItsNode(t *testing.T) {
	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mig", UID: "m-1"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: "vm", AddedNodeSelector: map[string]string{"zone": "b"}}}
	a, c := planWorld(t, runningVMI(), mig)
	src := &corev1.Pod{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "virt-launcher-vm-aaaaa"}, src))
	src.Annotations = map[string]string{kubevirtv1.DomainAnnotation: "vm", networkStatusAnnotation: `[{"name":"virtflow"}]`}
	src.Spec.NodeSelector = map[string]string{kubevirtv1.NodeSchedulable: "true"}
	src.Spec.Containers = []corev1.Container{{Name: "compute", Image: "launcher"}}
	require.NoError(t, c.Update(context.Background(), src))
	req := virt.NodeRequest{Migration: planInput.Migration, VMI: planInput.VMI, Plan: virt.MigrationPlan{Source: virt.Side{Node: "node-1", Pod: src.Name}}}

	name, err := a.CreateTargetPod(context.Background(), req)
	require.NoError(t, err)
	again, err := a.CreateTargetPod(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, name, again, "a retried step finds the pod it created")
	pod := &corev1.Pod{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: name}, pod))
	require.Regexp(t, `^virt-launcher-vm-[a-z0-9]{5}$`, name)
	require.NotEqual(t, src.Name, name)
	require.Empty(t, pod.Spec.NodeName, "the scheduler places it")
	require.Equal(t, "m-1", pod.Labels[kubevirtv1.MigrationJobLabel])
	require.Equal(t, "mig", pod.Annotations[kubevirtv1.MigrationJobNameAnnotation])
	require.Equal(t, "v-1", pod.Labels[kubevirtv1.CreatedByLabel])
	require.NotContains(t, pod.Annotations, networkStatusAnnotation, "Multus reports the target's own interfaces")
	require.Equal(t, map[string]string{kubevirtv1.NodeSchedulable: "true", "zone": "b"}, pod.Spec.NodeSelector)
	terms := pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	require.Len(t, terms, 1)
	require.Equal(t, corev1.LabelHostname, terms[0].TopologyKey)
	require.Equal(t, map[string]string{kubevirtv1.CreatedByLabel: "v-1"}, terms[0].LabelSelector.MatchLabels)
	require.Equal(t, src.Spec.Containers, pod.Spec.Containers, "the same launcher, volumes and resources")
}
