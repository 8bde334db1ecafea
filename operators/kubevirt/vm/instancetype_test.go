package vm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func TestInstancetypeAndPreferenceShapeTheVMI(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	cores := instancetypev1beta1.Cores
	it := &instancetypev1beta1.VirtualMachineClusterInstancetype{ObjectMeta: metav1.ObjectMeta{Name: "u1.medium"},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{
			CPU:    instancetypev1beta1.CPUInstancetype{Guest: 2},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse("4Gi")},
		}}
	pref := &instancetypev1beta1.VirtualMachineClusterPreference{ObjectMeta: metav1.ObjectMeta{Name: "windows.11"},
		Spec: instancetypev1beta1.VirtualMachinePreferenceSpec{
			CPU:     &instancetypev1beta1.CPUPreferences{PreferredCPUTopology: &cores},
			Devices: &instancetypev1beta1.DevicePreferences{PreferredDiskBus: kubevirtv1.DiskBusSATA, PreferredInterfaceModel: "e1000e"},
		}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(it, pref).Build()
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}, Spec: kubevirtv1.VirtualMachineSpec{
		Instancetype: &kubevirtv1.InstancetypeMatcher{Name: "u1.medium"},
		Preference:   &kubevirtv1.PreferenceMatcher{Name: "windows.11"},
		Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: kubevirtv1.VirtualMachineInstanceSpec{Domain: kubevirtv1.DomainSpec{
			Devices: kubevirtv1.Devices{
				Disks:      []kubevirtv1.Disk{{Name: "root"}, {Name: "fast", DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}}}},
				Interfaces: []kubevirtv1.Interface{{Name: "default"}},
			},
		}}},
	}}
	vmi := instanceFor(vm)
	require.NoError(t, expand(context.Background(), c, vm, vmi))
	d := vmi.Spec.Domain
	require.Equal(t, uint32(2), d.CPU.Cores, "the preference asks for cores")
	require.Equal(t, uint32(1), d.CPU.Sockets)
	require.Equal(t, "4Gi", d.Memory.Guest.String())
	require.Equal(t, kubevirtv1.DiskBusSATA, d.Devices.Disks[0].Disk.Bus, "unset bus takes the preference")
	require.Equal(t, kubevirtv1.DiskBusVirtio, d.Devices.Disks[1].Disk.Bus, "the VM's own choice wins")
	require.Equal(t, "e1000e", d.Devices.Interfaces[0].Model)
	require.Equal(t, "u1.medium", vmi.Annotations[kubevirtv1.ClusterInstancetypeAnnotation])
	require.Equal(t, "windows.11", vmi.Annotations[kubevirtv1.ClusterPreferenceAnnotation])

	vm.Spec.Template.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 4}
	err = expand(context.Background(), c, vm, instanceFor(vm))
	require.EqualError(t, err, "Failure while starting VMI: VMI conflicts with instancetype spec in fields: [spec.domain.cpu.cores]")
	require.Equal(t, "FailedCreate", reasonOf(err))

	vm.Spec.Template.Spec.Domain.CPU = nil
	vm.Spec.Instancetype.Name = "missing"
	err = expand(context.Background(), c, vm, instanceFor(vm))
	require.EqualError(t, err, `virtualmachineclusterinstancetypes.instancetype.kubevirt.io "missing" not found`)
	require.Equal(t, "FailedFindInstancetype", reasonOf(err))
}

func TestAVMNamingAMissingInstancetypeWaitsWithUpstreamsFailureCondition(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	always := kubevirtv1.RunStrategyAlways
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}, Spec: kubevirtv1.VirtualMachineSpec{
		RunStrategy:  &always,
		Instancetype: &kubevirtv1.InstancetypeMatcher{Name: "later", Kind: "VirtualMachineInstancetype"},
		Template:     &kubevirtv1.VirtualMachineInstanceTemplateSpec{},
	}}
	// The fake client cannot store VMIs (a uint64 in their status), so
	// creating one is only recorded.
	var created *kubevirtv1.VirtualMachineInstance
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(vm).WithStatusSubresource(vm).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if vmi, ok := obj.(*kubevirtv1.VirtualMachineInstance); ok {
				created = vmi
				return nil
			}
			return c.Create(ctx, obj, opts...)
		}}).Build()
	r := &Reconciler{Client: c, Recorder: record.NewFakeRecorder(10)}
	ctx := context.Background()
	res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(vm)})
	require.NoError(t, err)
	require.NotZero(t, res.RequeueAfter, "it looks again")
	got := &kubevirtv1.VirtualMachine{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(vm), got))
	require.Equal(t, kubevirtv1.VirtualMachineStatusStopped, got.Status.PrintableStatus)
	cond := failureCondition(got)
	require.NotNil(t, cond)
	require.Equal(t, "FailedFindInstancetype", cond.Reason)
	require.Equal(t, `virtualmachineinstancetypes.instancetype.kubevirt.io "later" not found`, cond.Message)
	require.Nil(t, created, "no VMI yet")

	require.NoError(t, c.Create(ctx, &instancetypev1beta1.VirtualMachineInstancetype{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "later"},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{CPU: instancetypev1beta1.CPUInstancetype{Guest: 1},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse("64Mi")}}}))
	_, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(vm)})
	require.NoError(t, err)
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(vm), got))
	require.Nil(t, failureCondition(got), "the condition goes once the instancetype exists")
	vmi := created
	require.NotNil(t, vmi)
	require.Equal(t, "64Mi", vmi.Spec.Domain.Memory.Guest.String())
	require.Equal(t, "later", vmi.Annotations[kubevirtv1.InstancetypeAnnotation])
}

func failureCondition(vm *kubevirtv1.VirtualMachine) *kubevirtv1.VirtualMachineCondition {
	for i, c := range vm.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineFailure {
			return &vm.Status.Conditions[i]
		}
	}
	return nil
}

func TestAVMKeepsTheInstancetypeItWasFirstSyncedWith(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	halted := kubevirtv1.RunStrategyHalted
	it := &instancetypev1beta1.VirtualMachineInstancetype{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sized", UID: "it-uid", Generation: 1},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{CPU: instancetypev1beta1.CPUInstancetype{Guest: 1},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse("64Mi")}}}
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "vm-uid"}, Spec: kubevirtv1.VirtualMachineSpec{
		RunStrategy:  &halted,
		Instancetype: &kubevirtv1.InstancetypeMatcher{Name: "sized", Kind: "VirtualMachineInstancetype"},
		Template:     &kubevirtv1.VirtualMachineInstanceTemplateSpec{},
	}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(vm, it).WithStatusSubresource(vm).Build()
	r := &Reconciler{Client: c, Recorder: record.NewFakeRecorder(10)}
	ctx := context.Background()
	_, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(vm)})
	require.NoError(t, err)
	got := &kubevirtv1.VirtualMachine{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(vm), got))
	ref := got.Status.InstancetypeRef
	require.NotNil(t, ref)
	require.Equal(t, "sized", ref.Name)
	require.Equal(t, "vm-sized-v1beta1-it-uid-1", ref.ControllerRevisionRef.Name, "upstream's revision name")

	it.Spec.Memory.Guest = resource.MustParse("128Mi")
	require.NoError(t, c.Update(ctx, it))
	vmi := instanceFor(got)
	require.NoError(t, expand(ctx, c, got, vmi))
	require.Equal(t, "64Mi", vmi.Spec.Domain.Memory.Guest.String(), "the stored revision, not the edited instancetype")
}
