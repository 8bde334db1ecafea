//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// testGuestReplicaSet keeps replicas copies of the test guest running.
func testGuestReplicaSet(name string, replicas int32) *kubevirtv1.VirtualMachineInstanceReplicaSet {
	labels := map[string]string{"app": name}
	return &kubevirtv1.VirtualMachineInstanceReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: kubevirtv1.VirtualMachineInstanceReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       testGuestVMI(name + "0").Spec,
			},
		},
	}
}

// TestVMIReplicaSetScalesAndReplacesVMIs scales a replica set of test
// guests up, down with kubectl scale, and has it replace a deleted VMI,
// checking the status it reports on the way.
func TestVMIReplicaSetScalesAndReplacesVMIs(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	rs := testGuestReplicaSet("vmirs", 2)
	rs.Namespace = n.namespace(t)
	require.NoError(t, n.c.Create(ctx, rs))
	defer deleteReplicaSet(t, n.c, rs)

	vmis := waitRSReplicas(t, n.c, rs, 2)
	for _, v := range vmis {
		require.True(t, strings.HasPrefix(v.Name, "vmirs"), "named from the replica set: %s", v.Name)
		require.Equal(t, "vmirs", v.Labels["app"])
	}

	out, err := n.kubectl("-n", rs.Namespace, "scale", "vmirs", rs.Name, "--replicas=1").CombinedOutput()
	require.NoError(t, err, "kubectl scale: %s", out)
	kept := waitRSReplicas(t, n.c, rs, 1)[0]
	require.Contains(t, []string{vmis[0].Name, vmis[1].Name}, kept.Name, "scaling down keeps one of the two")

	require.NoError(t, n.c.Delete(ctx, &kept))
	require.Eventually(t, func() bool {
		now := rsReplicas(t, n.c, rs)
		return len(now) == 1 && now[0].UID != kept.UID && vmiRunningAndReady(now[0])
	}, 3*time.Minute, 500*time.Millisecond, "the deleted VMI was not replaced")
	waitRSReplicas(t, n.c, rs, 1)
}

// TestVMIReplicaSetAdmissionRefusesASelectorMissingItsTemplate checks that
// virt-api's replica set webhook is registered and answers as upstream.
func TestVMIReplicaSetAdmissionRefusesASelectorMissingItsTemplate(t *testing.T) {
	n := onNode(t)
	rs := testGuestReplicaSet("vmirsbad", 1)
	rs.Namespace = n.namespace(t)
	rs.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
	err := n.c.Create(context.Background(), rs)
	require.EqualError(t, err, `admission webhook "virtualmachinereplicaset-validator.kubevirt.io" denied the request: selector does not match labels.`)
}

// waitRSReplicas waits until the replica set owns exactly want running, ready
// VMIs and says so in its status, and returns them.
func waitRSReplicas(t *testing.T, c crclient.Client, rs *kubevirtv1.VirtualMachineInstanceReplicaSet, want int) []kubevirtv1.VirtualMachineInstance {
	t.Helper()
	var vmis []kubevirtv1.VirtualMachineInstance
	got := &kubevirtv1.VirtualMachineInstanceReplicaSet{}
	require.Eventually(t, func() bool {
		vmis = rsReplicas(t, c, rs)
		if len(vmis) != want {
			return false
		}
		for _, v := range vmis {
			if !vmiRunningAndReady(v) {
				return false
			}
		}
		return c.Get(context.Background(), crclient.ObjectKeyFromObject(rs), got) == nil &&
			got.Status.Replicas == int32(want) && got.Status.ReadyReplicas == int32(want)
	}, 3*time.Minute, 500*time.Millisecond, "replica set %s never had %d ready replicas (status %+v)", rs.Name, want, got.Status)
	require.Equal(t, "app="+rs.Spec.Selector.MatchLabels["app"], got.Status.LabelSelector)
	return vmis
}

// rsReplicas are the VMIs the replica set controls that are not being
// deleted.
func rsReplicas(t *testing.T, c crclient.Client, rs *kubevirtv1.VirtualMachineInstanceReplicaSet) []kubevirtv1.VirtualMachineInstance {
	t.Helper()
	live := &kubevirtv1.VirtualMachineInstanceReplicaSet{}
	require.NoError(t, c.Get(context.Background(), crclient.ObjectKeyFromObject(rs), live))
	list := &kubevirtv1.VirtualMachineInstanceList{}
	require.NoError(t, c.List(context.Background(), list, crclient.InNamespace(rs.Namespace)))
	var out []kubevirtv1.VirtualMachineInstance
	for _, v := range list.Items {
		if ref := metav1.GetControllerOf(&v); ref != nil && ref.UID == live.UID && v.DeletionTimestamp == nil {
			out = append(out, v)
		}
	}
	return out
}

func vmiRunningAndReady(v kubevirtv1.VirtualMachineInstance) bool {
	if v.Status.Phase != kubevirtv1.Running {
		return false
	}
	for _, c := range v.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineInstanceReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// deleteReplicaSet deletes the replica set in the foreground, so its VMIs
// go first, and waits until their pods are gone too.
func deleteReplicaSet(t *testing.T, c crclient.Client, rs *kubevirtv1.VirtualMachineInstanceReplicaSet) {
	ctx := context.Background()
	_ = c.Delete(ctx, rs, crclient.PropagationPolicy(metav1.DeletePropagationForeground))
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		_ = c.List(ctx, pods, crclient.InNamespace(rs.Namespace))
		gone := apierrors.IsNotFound(c.Get(ctx, crclient.ObjectKeyFromObject(rs), &kubevirtv1.VirtualMachineInstanceReplicaSet{}))
		return gone && len(pods.Items) == 0
	}, 2*time.Minute, 200*time.Millisecond, "replica set %s and its pods were not removed", rs.Name)
}
