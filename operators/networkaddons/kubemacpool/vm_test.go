package kubemacpool

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

type ifaceSpec struct {
	iface kubevirtv1.Interface
	net   kubevirtv1.Network
}

func podIface(name, mac string) ifaceSpec {
	return ifaceSpec{
		iface: kubevirtv1.Interface{Name: name, MacAddress: mac, InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}},
		net:   kubevirtv1.Network{Name: name, NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}},
	}
}

func multusIface(name, mac string) ifaceSpec {
	return ifaceSpec{
		iface: kubevirtv1.Interface{Name: name, MacAddress: mac, InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}},
		net:   kubevirtv1.Network{Name: name, NetworkSource: kubevirtv1.NetworkSource{Multus: &kubevirtv1.MultusNetwork{NetworkName: "br1"}}},
	}
}

func podBridgeIface(name string) ifaceSpec {
	s := podIface(name, "")
	s.iface.InterfaceBindingMethod = kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}
	return s
}

func testVM(ns, name string, specs ...ifaceSpec) *kubevirtv1.VirtualMachine {
	vm := &kubevirtv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       kubevirtv1.VirtualMachineSpec{Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{}},
	}
	for _, s := range specs {
		vm.Spec.Template.Spec.Domain.Devices.Interfaces = append(vm.Spec.Template.Spec.Domain.Devices.Interfaces, s.iface)
		vm.Spec.Template.Spec.Networks = append(vm.Spec.Template.Spec.Networks, s.net)
	}
	return vm
}

func macs(vm *kubevirtv1.VirtualMachine) []string {
	var out []string
	for _, i := range vm.Spec.Template.Spec.Domain.Devices.Interfaces {
		out = append(out, i.MacAddress)
	}
	return out
}

func TestCreateAssignsManagedInterfacesOnly(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	vm := testVM("ns", "a", podIface("default", ""), multusIface("br", ""), podBridgeIface("pb"))
	out, err := p.MutateVM(nil, vm, t0)
	require.NoError(t, err)
	assert.Equal(t, []string{"02:00:00:00:00:00", "02:00:00:00:00:01", ""}, macs(out))
	assert.Equal(t, []string{"", "", ""}, macs(vm), "the submitted object is not changed")
	assert.Equal(t, t0.Format(time.RFC3339Nano), out.Annotations[TransactionTimestampAnnotation])
}

func TestCreateConflictIsDeniedWithUpstreamsMessageAndReservesNothing(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	_, err := p.MutateVM(nil, testVM("ns", "a", podIface("default", "02:00:00:00:00:09")), t0)
	require.NoError(t, err)
	review, err := p.Admit(OptOut, nil, nil, testVM("ns", "b", multusIface("br", ""), podIface("default", "02:00:00:00:00:09")), t0)
	require.NoError(t, err)
	assert.False(t, review.Allowed)
	assert.Equal(t, "Failed to create virtual machine allocation error: Failed to allocate mac to the vm object: failed to allocate requested mac address", review.Message)
	assert.Equal(t, 1, p.Len(), "the MAC taken for br before the conflict was rolled back")
}

func TestAdmitPatchesAndHonoursNamespaceLabels(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	review, err := p.Admit(OptOut, map[string]string{VMWebhookName: "ignore"}, nil, testVM("ns", "a", podIface("default", "")), t0)
	require.NoError(t, err)
	assert.True(t, review.Allowed)
	assert.Empty(t, review.Patch)
	assert.Zero(t, p.Len())
	review, err = p.Admit(OptOut, nil, nil, testVM("ns", "a", podIface("default", "")), t0)
	require.NoError(t, err)
	require.True(t, review.Allowed)
	var paths []string
	for _, op := range review.Patch {
		paths = append(paths, op.Path)
	}
	assert.Contains(t, paths, "/spec/template/spec/domain/devices/interfaces/0/macAddress")
}

func TestNamespaceManaged(t *testing.T) {
	assert.True(t, NamespaceManaged(OptOut, nil))
	assert.False(t, NamespaceManaged(OptOut, map[string]string{VMWebhookName: "ignore"}))
	assert.False(t, NamespaceManaged(OptOut, map[string]string{"openshift.io/run-level": "0"}))
	assert.False(t, NamespaceManaged(OptIn, nil))
	assert.True(t, NamespaceManaged(OptIn, map[string]string{VMWebhookName: "allocate"}))
}

func TestUpdateKeepsMACsAndReleasesRemovedOnCommit(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	created, err := p.MutateVM(nil, testVM("ns", "a", podIface("default", ""), multusIface("br", "")), t0)
	require.NoError(t, err)
	p.Commit(VMKey(created), t0)
	// The user drops br and resubmits default without its MAC.
	update := testVM("ns", "a", podIface("default", ""))
	t1 := t0.Add(time.Second)
	out, err := p.MutateVM(created, update, t1)
	require.NoError(t, err)
	assert.Equal(t, []string{"02:00:00:00:00:00"}, macs(out))
	_, _, pending, held := p.Owner("02:00:00:00:00:01")
	assert.True(t, held && pending, "the removed MAC is held until the update is persisted")
	p.Commit(VMKey(out), t1)
	_, _, _, held = p.Owner("02:00:00:00:00:01")
	assert.False(t, held, "released once the update committed")
	_, _, pending, held = p.Owner("02:00:00:00:00:00")
	assert.True(t, held)
	assert.False(t, pending)
}

func TestUpdateToATakenMACIsDenied(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	a, err := p.MutateVM(nil, testVM("ns", "a", podIface("default", "")), t0)
	require.NoError(t, err)
	b, err := p.MutateVM(nil, testVM("ns", "b", podIface("default", "")), t0)
	require.NoError(t, err)
	update := b.DeepCopy()
	update.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress = macs(a)[0]
	review, err := p.Admit(OptOut, nil, b, update, t0)
	require.NoError(t, err)
	assert.False(t, review.Allowed)
	assert.Contains(t, review.Message, "Failed to update virtual machine allocation error:")
	assert.Contains(t, review.Message, "failed to allocate requested mac address")
	owner, _, _, _ := p.Owner(macs(b)[0])
	assert.Equal(t, "vm/ns/b", owner, "b keeps its MAC after the refused update")
}

func TestMalformedRequestedMACIsDenied(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	review, err := p.Admit(OptOut, nil, nil, testVM("ns", "a", podIface("default", "02:00:00:00:00")), t0)
	require.NoError(t, err)
	assert.False(t, review.Allowed)
	assert.Contains(t, review.Message, "invalid MAC address")
	assert.Zero(t, p.Len())
}

func TestRebuildAfterRestartKeepsAllocationsAndCountsCollisions(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	a, err := p.MutateVM(nil, testVM("ns", "a", podIface("default", "")), t0)
	require.NoError(t, err)
	vms := []kubevirtv1.VirtualMachine{
		*a,
		*testVM("ns", "b", podIface("default", "02:00:00:00:00:07")),
		*testVM("ns", "c", podIface("default", "02:00:00:00:00:07")),
		*testVM("skip", "d", podIface("default", "02:00:00:00:00:08")),
	}
	before := testutil.ToFloat64(duplicateMACs)
	restarted := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	sharing := restarted.Rebuild(vms, func(ns string) bool { return ns != "skip" })
	assert.Equal(t, map[string]int{"02:00:00:00:00:07": 2}, sharing)
	assert.Equal(t, 1.0, testutil.ToFloat64(duplicateMACs)-before)
	assert.Equal(t, 2.0, testutil.ToFloat64(macCollisions.WithLabelValues("02:00:00:00:00:07")))
	assert.Equal(t, 2, restarted.Len())
	_, err = restarted.MutateVM(nil, testVM("ns", "e", podIface("default", macs(a)[0])), t0)
	assert.ErrorIs(t, err, ErrInUse, "the restarted pool still knows a's MAC")
	_, err = restarted.MutateVM(nil, testVM("ns", "f", podIface("default", "02:00:00:00:00:08")), t0)
	assert.NoError(t, err, "an unmanaged namespace's MAC is not in the map")
}
