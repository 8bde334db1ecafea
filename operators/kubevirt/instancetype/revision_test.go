package instancetype

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	api "kubevirt.io/api/instancetype"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func TestStoreKeepsARevisionPerMatcherAndFollowsAChangedOne(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	small := &v1beta1.VirtualMachineClusterInstancetype{ObjectMeta: metav1.ObjectMeta{Name: "small", UID: "s", Generation: 2,
		Labels: map[string]string{"noise": "x"}},
		Spec: v1beta1.VirtualMachineInstancetypeSpec{CPU: v1beta1.CPUInstancetype{Guest: 1}, Memory: v1beta1.MemoryInstancetype{Guest: resource.MustParse("1Gi")}}}
	big := small.DeepCopy()
	big.Name, big.UID, big.Spec.CPU.Guest = "big", "b", 4
	pref := &v1beta1.VirtualMachineClusterPreference{ObjectMeta: metav1.ObjectMeta{Name: "linux", UID: "p", Generation: 1}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(small, big, pref).Build()
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "v"}, Spec: kubevirtv1.VirtualMachineSpec{
		Instancetype: &kubevirtv1.InstancetypeMatcher{Name: "small"}, Preference: &kubevirtv1.PreferenceMatcher{Name: "linux"},
		Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{}}}
	ctx := context.Background()
	require.NoError(t, Store(ctx, c, vm))
	require.NoError(t, Store(ctx, c, vm), "storing again finds the same revisions")
	require.Equal(t, "vm-small-v1beta1-s-2", vm.Status.InstancetypeRef.ControllerRevisionRef.Name)
	require.Equal(t, "vm-linux-v1beta1-p-1", vm.Status.PreferenceRef.ControllerRevisionRef.Name)
	rev := &appsv1.ControllerRevision{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "vm-small-v1beta1-s-2"}, rev))
	require.Equal(t, "VirtualMachineClusterInstancetype", rev.Labels[api.ControllerRevisionObjectKindLabel])
	require.NotContains(t, string(rev.Data.Raw), "noise", "labels are not stored")

	vm.Spec.Instancetype.Name = "big"
	require.NoError(t, Store(ctx, c, vm))
	require.Equal(t, "vm-big-v1beta1-b-2", vm.Status.InstancetypeRef.ControllerRevisionRef.Name, "a changed matcher gets its own revision")
	spec, err := InstancetypeForVM(ctx, c, vm)
	require.NoError(t, err)
	require.Equal(t, uint32(4), spec.CPU.Guest)
}
