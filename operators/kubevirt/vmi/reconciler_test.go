package vmi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func newVMI() *kubevirtv1.VirtualMachineInstance {
	mem := resource.MustParse("1Gi")
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "u1"},
		Spec: kubevirtv1.VirtualMachineInstanceSpec{
			NodeSelector: map[string]string{"zone": "a"},
			Domain: kubevirtv1.DomainSpec{
				Memory: &kubevirtv1.Memory{Guest: &mem},
				CPU:    &kubevirtv1.CPU{Cores: 2},
			},
		},
	}
}

func setup(t *testing.T, objs ...client.Object) (*Reconciler, client.Client, ctrl.Request) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&kubevirtv1.VirtualMachineInstance{}, &corev1.Pod{}).Build()
	return &Reconciler{Client: c, Recorder: record.NewFakeRecorder(10)}, c,
		ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "vm"}}
}

func get(t *testing.T, c client.Client, req ctrl.Request) *kubevirtv1.VirtualMachineInstance {
	v := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, c.Get(context.Background(), req.NamespacedName, v))
	return v
}

func pods(t *testing.T, c client.Client) []corev1.Pod {
	list := &corev1.PodList{}
	require.NoError(t, c.List(context.Background(), list))
	return list.Items
}

func TestNewVMIGetsOneLauncherPodWithOverhead(t *testing.T) {
	r, c, req := setup(t, newVMI())
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, kubevirtv1.Pending, get(t, c, req).Status.Phase)
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	ps := pods(t, c)
	require.Len(t, ps, 1, "reconciling twice creates one pod")
	p := ps[0]
	require.Equal(t, "virt-launcher", p.Labels[kubevirtv1.AppLabel])
	require.Equal(t, "u1", p.Labels[kubevirtv1.CreatedByLabel])
	require.Equal(t, "vm", p.Annotations[kubevirtv1.DomainAnnotation])
	require.Equal(t, "a", p.Spec.NodeSelector["zone"])
	require.Equal(t, "true", p.Spec.NodeSelector[kubevirtv1.NodeSchedulable])
	mem := p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
	want := resource.MustParse("1Gi")
	want.Add(resource.MustParse("176Mi")) // 160Mi static + 2 vCPUs × 8Mi
	require.Equal(t, want.Value(), mem.Value())
	v := get(t, c, req)
	require.Equal(t, kubevirtv1.Scheduling, v.Status.Phase, "the pod waits for the scheduler")
	require.Contains(t, v.Finalizers, kubevirtv1.VirtualMachineInstanceFinalizer)
}

func TestSchedulingIsMirroredUntilTheNodeAgentTakesOver(t *testing.T) {
	r, c, req := setup(t, newVMI())
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	p := pods(t, c)[0]
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: "Unschedulable", Message: "0/1 nodes are available: 1 Insufficient memory."}}
	require.NoError(t, c.Status().Update(context.Background(), &p))
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	v := get(t, c, req)
	require.Equal(t, kubevirtv1.Scheduling, v.Status.Phase)
	require.Equal(t, "0/1 nodes are available: 1 Insufficient memory.", v.Status.Conditions[0].Message)

	p = pods(t, c)[0]
	p.Spec.NodeName = "node-1"
	require.NoError(t, c.Update(context.Background(), &p))
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	v = get(t, c, req)
	require.Equal(t, kubevirtv1.Scheduled, v.Status.Phase)
	require.Equal(t, "node-1", v.Status.NodeName)
	require.Len(t, v.Status.PhaseTransitionTimestamps, 3, "Pending, Scheduling, Scheduled")
	require.Equal(t, kubevirtv1.Scheduled, v.Status.PhaseTransitionTimestamps[2].Phase)

	v.Status.Phase = kubevirtv1.Running
	require.NoError(t, c.Status().Update(context.Background(), v))
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, kubevirtv1.Running, get(t, c, req).Status.Phase, "the node agent's phase is not overwritten")
}

func TestVMIWithoutMemoryFails(t *testing.T) {
	v := newVMI()
	v.Spec.Domain.Memory = nil
	r, c, req := setup(t, v)
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, kubevirtv1.Failed, get(t, c, req).Status.Phase)
	require.Empty(t, pods(t, c))
}

func TestAFailedLauncherPodStaysAndTheVMISaysWhy(t *testing.T) {
	vmi := newVMI()
	vmi.Status.Phase = kubevirtv1.Scheduled
	vmi.Finalizers = []string{kubevirtv1.VirtualMachineInstanceFinalizer}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm-x",
		Labels: map[string]string{kubevirtv1.CreatedByLabel: "u1"}},
		Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{Name: "compute",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
				Message: "starting libvirtd: permission denied\n"}}}}}}
	r, c, req := setup(t, vmi, pod)
	rec := r.Recorder.(*record.FakeRecorder)
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	got := get(t, c, req)
	require.Equal(t, kubevirtv1.Failed, got.Status.Phase)
	want := "container compute exited with code 1 (Error): starting libvirtd: permission denied"
	var cond *kubevirtv1.VirtualMachineInstanceCondition
	for i := range got.Status.Conditions {
		if got.Status.Conditions[i].Type == kubevirtv1.VirtualMachineInstanceSynchronized {
			cond = &got.Status.Conditions[i]
		}
	}
	require.NotNil(t, cond)
	require.Equal(t, "PodFailed", cond.Reason)
	require.Equal(t, want, cond.Message)
	require.Equal(t, "Warning PodFailed "+want, <-rec.Events)

	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, pods(t, c), 1, "the failed pod stays for its log while the VMI exists")
	require.Empty(t, get(t, c, req).Finalizers, "nothing left to clean up before deletion")
}
