package kubemacpool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// TestAReservationSurvivesARestartBeforeItsVMIsStored: the webhook answered
// for vm-a, then kubemacpool restarted before vm-a was stored; the new pool
// rebuilt from stored VMs alone would offer vm-a's MAC again. With the
// journal it does not.
func TestAReservationSurvivesARestartBeforeItsVMIsStored(t *testing.T) {
	r, err := ParseRange("02:00:00:00:00:00", "02:00:00:00:00:01")
	require.NoError(t, err)
	before, err := NewPool(r, time.Minute)
	require.NoError(t, err)
	at := time.Now()
	mac, err := before.Allocate("ns/vm-a", "default", at)
	require.NoError(t, err)
	data, err := EncodeReservations(before.Pending())
	require.NoError(t, err)

	after, err := NewPool(r, time.Minute)
	require.NoError(t, err)
	after.Rebuild(nil, nil)
	after.RestorePending(DecodeReservations(data))
	owner, iface, pending, ok := after.Owner(mac)
	require.True(t, ok)
	require.True(t, pending)
	require.Equal(t, "ns/vm-a", owner)
	require.Equal(t, "default", iface)
	other, err := after.Allocate("ns/vm-b", "default", at)
	require.NoError(t, err)
	require.NotEqual(t, mac, other, "the restarted pool does not hand vm-a's MAC to vm-b")
	_, err = after.Allocate("ns/vm-c", "default", at)
	require.ErrorIs(t, err, ErrFull)
}

func TestAStoredVMKeepsItsMACOverAJournaledPromise(t *testing.T) {
	r, err := ParseRange("02:00:00:00:00:00", "02:00:00:00:00:0f")
	require.NoError(t, err)
	p, err := NewPool(r, time.Minute)
	require.NoError(t, err)
	vm := kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "stored"}, Spec: kubevirtv1.VirtualMachineSpec{
		Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: kubevirtv1.VirtualMachineInstanceSpec{Domain: kubevirtv1.DomainSpec{
			Devices: kubevirtv1.Devices{Interfaces: []kubevirtv1.Interface{{Name: "default", MacAddress: "02:00:00:00:00:05",
				InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}}}}}}}}}
	p.Rebuild([]kubevirtv1.VirtualMachine{vm}, nil)
	p.RestorePending([]Reservation{{MAC: "02:00:00:00:00:05", Owner: "vm/ns/late", Interface: "default", Since: time.Now()}})
	owner, _, pending, ok := p.Owner("02:00:00:00:00:05")
	require.True(t, ok)
	require.False(t, pending)
	require.Equal(t, "vm/ns/stored", owner)
}
