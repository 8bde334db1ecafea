package virtadmission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func deployedKubeVirt(strategy kubevirtv1.KubeVirtUninstallStrategy, phase kubevirtv1.KubeVirtPhase) *kubevirtv1.KubeVirt {
	return &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt", Name: "kv"},
		Spec: kubevirtv1.KubeVirtSpec{UninstallStrategy: strategy}, Status: kubevirtv1.KubeVirtStatus{Phase: phase}}
}

func deleteKubeVirt(t *testing.T, objs ...client.Object) admission.Response {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Delete,
		Namespace: "kubevirt", Name: "kv", Resource: metav1.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "kubevirts"}}}
	return (&KubeVirtDeletionValidator{Reader: c}).Handle(context.Background(), req)
}

func TestKubeVirtWithWorkloadsIsNotUninstalledAsUpstream(t *testing.T) {
	block := kubevirtv1.KubeVirtUninstallStrategyBlockUninstallIfWorkloadsExist
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}}
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}}
	rs := &kubevirtv1.VirtualMachineInstanceReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rs"}}
	for name, c := range map[string]struct {
		objs []client.Object
		what string
	}{
		"instances first":   {[]client.Object{deployedKubeVirt(block, kubevirtv1.KubeVirtPhaseDeployed), vm, vmi, rs}, "Virtual Machine Instances"},
		"machines":          {[]client.Object{deployedKubeVirt(block, kubevirtv1.KubeVirtPhaseDeployed), vm, rs}, "Virtual Machines"},
		"replica sets last": {[]client.Object{deployedKubeVirt(block, kubevirtv1.KubeVirtPhaseDeployed), rs}, "Virtual Machine Instance Replica Sets"},
	} {
		t.Run(name, func(t *testing.T) {
			resp := deleteKubeVirt(t, c.objs...)
			require.False(t, resp.Allowed)
			require.EqualValues(t, 400, resp.Result.Code)
			require.Equal(t, "Rejecting the uninstall request, since there are still "+c.what+" present. "+
				"Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt.", resp.Result.Message)
		})
	}
}

func TestKubeVirtIsUninstalledWhenNothingHoldsIt(t *testing.T) {
	block := kubevirtv1.KubeVirtUninstallStrategyBlockUninstallIfWorkloadsExist
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}}
	for name, objs := range map[string][]client.Object{
		"no workloads":     {deployedKubeVirt(block, kubevirtv1.KubeVirtPhaseDeployed)},
		"remove workloads": {deployedKubeVirt(kubevirtv1.KubeVirtUninstallStrategyRemoveWorkloads, kubevirtv1.KubeVirtPhaseDeployed), vm},
		"no strategy":      {deployedKubeVirt("", kubevirtv1.KubeVirtPhaseDeployed), vm},
		"not deployed":     {deployedKubeVirt(block, kubevirtv1.KubeVirtPhaseDeploying), vm},
	} {
		require.True(t, deleteKubeVirt(t, objs...).Allowed, name)
	}
	resp := deleteKubeVirt(t, vm)
	require.False(t, resp.Allowed, "a KubeVirt that cannot be read is a bad request")
	require.EqualValues(t, 400, resp.Result.Code)
}
