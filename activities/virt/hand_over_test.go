package virt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
)

// targetOn is the migration's target pod, running on node.
func targetOn(node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm-bbbbb",
		Labels: map[string]string{kubevirtv1.CreatedByLabel: "v-1", kubevirtv1.MigrationJobLabel: "m-1"}},
		Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

func TestTheHandOverMovesTheVMIToItsTargetAndRemovesTheSource(t *testing.T) {
	ctx := context.Background()
	evacuated := runningVMI()
	evacuated.Status.EvacuationNodeName = "node-1"
	a, c := planWorld(t, evacuated, targetOn("node-2"))
	_, err := a.PlanMigration(ctx, planInput)
	require.NoError(t, err)
	req := virt.NodeRequest{Migration: planInput.Migration, VMI: planInput.VMI, Plan: virt.MigrationPlan{Source: virt.Side{Node: "node-1", Pod: "virt-launcher-vm-aaaaa"}},
		Target: virt.Side{Node: "node-2", Pod: "virt-launcher-vm-bbbbb"}, Endpoint: virt.TargetEndpoint{Address: "10.250.0.12", Ports: map[string]int{"40001": 0}}}
	for i := 0; i < 2; i++ {
		require.NoError(t, a.HandOver(ctx, req), "repeated, it changes nothing more")
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "vm"}, vmi))
	require.Equal(t, "node-2", vmi.Status.NodeName)
	require.Equal(t, "node-2", vmi.Labels[kubevirtv1.NodeNameLabel])
	require.Empty(t, vmi.Status.EvacuationNodeName, "the evacuation that asked for the move is over")
	st := vmi.Status.MigrationState
	require.True(t, st.Completed)
	require.False(t, st.Failed)
	require.Equal(t, "virt-launcher-vm-bbbbb", st.TargetPod)
	require.Equal(t, map[string]int{"40001": 0}, st.TargetDirectMigrationNodePorts)
	require.NotNil(t, st.EndTimestamp)
	err = c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "virt-launcher-vm-aaaaa"}, &corev1.Pod{})
	require.True(t, apierrors.IsNotFound(err), "the source pod goes")

	require.NoError(t, a.RecordMigrationEnd(ctx, req, virt.MigrateResult{Phase: virt.PhaseFailed, Reason: "late"}))
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "vm"}, vmi))
	require.False(t, vmi.Status.MigrationState.Failed, "a completed migration is not marked failed")
}

func TestAFailedMigrationIsRecordedOnItsVMI(t *testing.T) {
	ctx := context.Background()
	a, c := planWorld(t, runningVMI())
	_, err := a.PlanMigration(ctx, planInput)
	require.NoError(t, err)
	req := virt.NodeRequest{Migration: planInput.Migration, VMI: planInput.VMI, Target: virt.Side{Pod: "virt-launcher-vm-bbbbb"}}
	require.NoError(t, a.RemoveTarget(ctx, req), "a target that is already gone is fine")
	req.Target.Pod = "virt-launcher-vm-aaaaa"
	require.ErrorContains(t, a.RemoveTarget(ctx, req), "is not the target of migration mig", "the source is never removed as a target")
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "virt-launcher-vm-aaaaa"}, &corev1.Pod{}))
	require.NoError(t, a.RecordMigrationEnd(ctx, req, virt.MigrateResult{Phase: virt.PhaseFailed, Reason: "Live migration failed"}))
	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "vm"}, vmi))
	require.True(t, vmi.Status.MigrationState.Failed)
	require.Equal(t, "Live migration failed", vmi.Status.MigrationState.FailureReason)
	require.Equal(t, "node-1", vmi.Status.NodeName, "the VMI stays where it is")

	// A VMI gone, or replaced under its name, has no end to record.
	replaced := req
	replaced.VMI.UID = "v-other"
	require.NoError(t, a.RecordMigrationEnd(ctx, replaced, virt.MigrateResult{Phase: virt.PhaseFailed}))
	require.NoError(t, c.Delete(ctx, vmi))
	require.NoError(t, a.RecordMigrationEnd(ctx, req, virt.MigrateResult{Phase: virt.PhaseFailed}))
}

// The hand-over takes the target's node from the cluster and acts only on
// the VMI's own launchers.
func TestTheHandOverChecksWhatItIsGiven(t *testing.T) {
	ctx := context.Background()
	stranger := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "someone-else", Labels: map[string]string{kubevirtv1.CreatedByLabel: "v-9"}}}
	a, c := planWorld(t, runningVMI(), targetOn("node-2"), stranger)
	_, err := a.PlanMigration(ctx, planInput)
	require.NoError(t, err)
	req := virt.NodeRequest{Migration: planInput.Migration, VMI: planInput.VMI, Plan: virt.MigrationPlan{Source: virt.Side{Node: "node-1", Pod: "someone-else"}},
		Target: virt.Side{Node: "node-3", Pod: "virt-launcher-vm-bbbbb"}}
	require.ErrorContains(t, a.HandOver(ctx, req), `target pod virt-launcher-vm-bbbbb runs on "node-2", not on node-3`)
	req.Target.Node = "node-2"
	require.ErrorContains(t, a.HandOver(ctx, req), "pod someone-else is not a launcher of VMI vm")
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "someone-else"}, &corev1.Pod{}), "another VMI's pod stays")
	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "vm"}, vmi))
	require.Equal(t, "node-1", vmi.Status.NodeName, "nothing was written")
}

func TestATargetWhoseCreationWasInterruptedIsFoundByItsMigration(t *testing.T) {
	ctx := context.Background()
	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mig", UID: "m-1"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: "vm"}}
	a, c := planWorld(t, runningVMI(), mig)
	req := virt.NodeRequest{Migration: planInput.Migration, VMI: planInput.VMI, Plan: virt.MigrationPlan{Source: virt.Side{Node: "node-1", Pod: "virt-launcher-vm-aaaaa"}}}
	name, err := a.CreateTargetPod(ctx, req)
	require.NoError(t, err)
	require.NoError(t, a.RemoveTarget(ctx, req), "the workflow never heard the pod's name")
	err = c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: name}, &corev1.Pod{})
	require.True(t, apierrors.IsNotFound(err), "the pod the creation made goes")
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "virt-launcher-vm-aaaaa"}, &corev1.Pod{}), "the source stays")
}
