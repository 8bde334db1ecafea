package virtapi

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func actionsWith(t *testing.T, strategy kubevirtv1.VirtualMachineRunStrategy, vmiPhase kubevirtv1.VirtualMachineInstancePhase) (*Actions, client.Client) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}, Spec: kubevirtv1.VirtualMachineSpec{RunStrategy: &strategy}}
	objs := []client.Object{vm}
	if vmiPhase != "" {
		objs = append(objs, &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "vmi-uid"},
			Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: vmiPhase}})
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(vm).Build()
	return &Actions{Client: c}, c
}

func getVM(t *testing.T, c client.Client) *kubevirtv1.VirtualMachine {
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "vm"}, vm))
	return vm
}

func code(err error) int {
	var ae *ActionError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return 0
}

func TestStartAndStopFlipHaltedAndAlways(t *testing.T) {
	a, c := actionsWith(t, kubevirtv1.RunStrategyHalted, "")
	require.NoError(t, a.Start(context.Background(), "ns", "vm"))
	require.Equal(t, kubevirtv1.RunStrategyAlways, *getVM(t, c).Spec.RunStrategy)

	a, c = actionsWith(t, kubevirtv1.RunStrategyAlways, kubevirtv1.Running)
	require.Equal(t, http.StatusConflict, code(a.Start(context.Background(), "ns", "vm")), "already running")
	require.NoError(t, a.Stop(context.Background(), "ns", "vm", nil))
	require.Equal(t, kubevirtv1.RunStrategyHalted, *getVM(t, c).Spec.RunStrategy)
}

func TestManualUsesStateChangeRequests(t *testing.T) {
	a, c := actionsWith(t, kubevirtv1.RunStrategyManual, kubevirtv1.Running)
	require.NoError(t, a.Restart(context.Background(), "ns", "vm"))
	reqs := getVM(t, c).Status.StateChangeRequests
	require.Len(t, reqs, 2)
	require.Equal(t, kubevirtv1.StopRequest, reqs[0].Action)
	require.Equal(t, types.UID("vmi-uid"), *reqs[0].UID)
	require.Equal(t, kubevirtv1.StartRequest, reqs[1].Action)
	err := a.Stop(context.Background(), "ns", "vm", nil)
	require.Equal(t, http.StatusInternalServerError, code(err), "one change at a time")
	require.EqualError(t, err, "Internal error occurred: unable to complete request: stop/start already underway")
}

func TestStopWithGracePeriodShortensTheVMIs(t *testing.T) {
	a, c := actionsWith(t, kubevirtv1.RunStrategyAlways, kubevirtv1.Running)
	zero := int64(0)
	require.NoError(t, a.Stop(context.Background(), "ns", "vm", &zero))
	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "vm"}, vmi))
	require.EqualValues(t, 0, *vmi.Spec.TerminationGracePeriodSeconds)
}

func TestActionErrors(t *testing.T) {
	a, _ := actionsWith(t, kubevirtv1.RunStrategyHalted, "")
	require.Equal(t, http.StatusNotFound, code(a.Start(context.Background(), "ns", "other")))
	require.Equal(t, http.StatusConflict, code(a.Stop(context.Background(), "ns", "vm", nil)))
	err := a.Restart(context.Background(), "ns", "vm")
	require.Equal(t, http.StatusConflict, code(err))
	require.Contains(t, err.Error(), "does not support manual restart requests")
}
