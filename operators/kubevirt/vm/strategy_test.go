package vm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func vmiIn(phase kubevirtv1.VirtualMachineInstancePhase) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: phase}}
}

func TestRunStrategyTransitions(t *testing.T) {
	start := &kubevirtv1.VirtualMachineStateChangeRequest{Action: kubevirtv1.StartRequest}
	stop := &kubevirtv1.VirtualMachineStateChangeRequest{Action: kubevirtv1.StopRequest}
	cases := []struct {
		strategy kubevirtv1.VirtualMachineRunStrategy
		vmi      *kubevirtv1.VirtualMachineInstance
		req      *kubevirtv1.VirtualMachineStateChangeRequest
		want     action
	}{
		{kubevirtv1.RunStrategyAlways, nil, nil, create},
		{kubevirtv1.RunStrategyAlways, vmiIn(kubevirtv1.Running), nil, keep},
		{kubevirtv1.RunStrategyAlways, vmiIn(kubevirtv1.Succeeded), nil, recreate},
		{kubevirtv1.RunStrategyAlways, vmiIn(kubevirtv1.Failed), nil, recreate},
		{kubevirtv1.RunStrategyHalted, vmiIn(kubevirtv1.Running), nil, remove},
		{kubevirtv1.RunStrategyHalted, nil, nil, keep},
		{kubevirtv1.RunStrategyRerunOnFailure, nil, nil, create},
		{kubevirtv1.RunStrategyRerunOnFailure, vmiIn(kubevirtv1.Failed), nil, recreate},
		{kubevirtv1.RunStrategyRerunOnFailure, vmiIn(kubevirtv1.Succeeded), nil, keep},
		{kubevirtv1.RunStrategyOnce, nil, nil, create},
		{kubevirtv1.RunStrategyOnce, vmiIn(kubevirtv1.Failed), nil, keep},
		{kubevirtv1.RunStrategyOnce, vmiIn(kubevirtv1.Succeeded), nil, keep},
		{kubevirtv1.RunStrategyManual, nil, nil, keep},
		{kubevirtv1.RunStrategyManual, nil, start, create},
		{kubevirtv1.RunStrategyManual, vmiIn(kubevirtv1.Running), stop, remove},
		{kubevirtv1.RunStrategyManual, vmiIn(kubevirtv1.Succeeded), start, recreate},
		{kubevirtv1.RunStrategyManual, vmiIn(kubevirtv1.Running), nil, keep},
	}
	for _, c := range cases {
		phase := "none"
		if c.vmi != nil {
			phase = string(c.vmi.Status.Phase)
		}
		require.Equal(t, c.want, decide(c.strategy, c.vmi, c.req), "%s with VMI %s and request %v", c.strategy, phase, c.req)
	}
}

func TestPrintableStatus(t *testing.T) {
	vm := &kubevirtv1.VirtualMachine{}
	require.Equal(t, kubevirtv1.VirtualMachineStatusStopped, printable(vm, nil))
	require.Equal(t, kubevirtv1.VirtualMachineStatusStarting, printable(vm, vmiIn(kubevirtv1.Scheduled)))
	require.Equal(t, kubevirtv1.VirtualMachineStatusRunning, printable(vm, vmiIn(kubevirtv1.Running)))

	paused := vmiIn(kubevirtv1.Running)
	paused.Status.Conditions = []kubevirtv1.VirtualMachineInstanceCondition{{Type: kubevirtv1.VirtualMachineInstancePaused, Status: "True"}}
	require.Equal(t, kubevirtv1.VirtualMachineStatusPaused, printable(vm, paused))

	unsched := vmiIn(kubevirtv1.Scheduling)
	unsched.Status.Conditions = []kubevirtv1.VirtualMachineInstanceCondition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable"}}
	require.Equal(t, kubevirtv1.VirtualMachineStatusUnschedulable, printable(vm, unsched))

	now := metav1.Now()
	stopping := vmiIn(kubevirtv1.Running)
	stopping.DeletionTimestamp = &now
	require.Equal(t, kubevirtv1.VirtualMachineStatusStopping, printable(vm, stopping))

	crashing := &kubevirtv1.VirtualMachine{Status: kubevirtv1.VirtualMachineStatus{StartFailure: &kubevirtv1.VirtualMachineStartFailure{ConsecutiveFailCount: 2}}}
	require.Equal(t, kubevirtv1.VirtualMachineStatusCrashLoopBackOff, printable(crashing, nil))

	deleting := &kubevirtv1.VirtualMachine{}
	deleting.DeletionTimestamp = &now
	require.Equal(t, kubevirtv1.VirtualMachineStatusTerminating, printable(deleting, vmiIn(kubevirtv1.Running)))
}

func TestFailuresBackOffExponentially(t *testing.T) {
	vm := &kubevirtv1.VirtualMachine{}
	for i, uid := range []string{"a", "b", "c"} {
		v := vmiIn(kubevirtv1.Failed)
		v.UID = typesUID(uid)
		recordFailure(vm, v)
		recordFailure(vm, v) // the same failed VMI counts once
		require.Equal(t, i+1, vm.Status.StartFailure.ConsecutiveFailCount)
	}
	wait := backingOff(vm)
	require.Greater(t, wait.Seconds(), 30.0, "third failure waits 40s")
	require.LessOrEqual(t, wait.Seconds(), 40.0)
}

func typesUID(s string) types.UID { return types.UID(s) }

func TestAFailedVMIIsKeptThroughItsBackoffAndItsReasonReported(t *testing.T) {
	always := kubevirtv1.RunStrategyAlways
	vm := &kubevirtv1.VirtualMachine{Spec: kubevirtv1.VirtualMachineSpec{RunStrategy: &always}}
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Name: "vm", UID: "first"},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Failed, Conditions: []kubevirtv1.VirtualMachineInstanceCondition{{
			Type: kubevirtv1.VirtualMachineInstanceSynchronized, Status: corev1.ConditionFalse, Reason: "PodFailed",
			Message: "container compute exited with code 1 (Error): no space left"}}}}
	rec := record.NewFakeRecorder(5)
	r := &Reconciler{Recorder: rec}
	a, res := r.plan(vm, vmi, always, nil)
	require.Equal(t, keep, a, "the failed VMI stays while the VM backs off")
	require.InDelta(t, 10*time.Second, res.RequeueAfter, float64(time.Second))
	require.Equal(t, "Warning VMIFailed VirtualMachineInstance vm failed: container compute exited with code 1 (Error): no space left", <-rec.Events)
	a, _ = r.plan(vm, vmi, always, nil)
	require.Equal(t, keep, a)
	require.Empty(t, rec.Events, "one event per failed VMI")

	past := metav1.NewTime(time.Now().Add(-time.Second))
	vm.Status.StartFailure.RetryAfterTimestamp = &past
	a, _ = r.plan(vm, vmi, always, nil)
	require.Equal(t, recreate, a, "once the backoff has passed a new VMI replaces it")
}
