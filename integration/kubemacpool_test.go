//go:build integration

package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/networkaddons/kubemacpool"
	"github.com/virtflow/virtflow/operators/networkaddons/networkaddonsconfig"
)

// kmpDuplicate is kubemacpool's refusal of a MAC another VM holds.
const kmpDuplicate = "Failed to create virtual machine allocation error: Failed to allocate mac to the vm object: failed to allocate requested mac address"

// maskedVM is a halted test-guest VM with one masquerade interface on the
// pod network, asking for mac (none when empty).
func maskedVM(ns, name, mac string) *kubevirtv1.VirtualMachine {
	vm := testGuestVM(name, kubevirtv1.RunStrategyHalted)
	vm.Namespace = ns
	spec := &vm.Spec.Template.Spec
	spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default", MacAddress: mac,
		InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}}}
	spec.Networks = []kubevirtv1.Network{*kubevirtv1.DefaultPodNetwork()}
	return vm
}

// macRange is the range cluster-network-addons-operator gave kubemacpool.
func macRange(t *testing.T, s *space) kubemacpool.Range {
	t.Helper()
	cm := &corev1.ConfigMap{}
	require.Eventually(t, func() bool {
		return s.c.Get(context.Background(), types.NamespacedName{Namespace: "kubevirt-hyperconverged", Name: networkaddonsconfig.RangeConfig}, cm) == nil
	}, 2*time.Minute, time.Second)
	r, err := kubemacpool.ParseRange(cm.Data[networkaddonsconfig.RangeStartKey], cm.Data[networkaddonsconfig.RangeEndKey])
	require.NoError(t, err)
	return r
}

func vmMAC(t *testing.T, s *space, name string) string {
	t.Helper()
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, s.c.Get(context.Background(), s.key(name), vm))
	return vm.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress
}

// TestKubeMacPoolGivesConcurrentVMsDistinctMACs creates 50 VMs at once:
// each gets its own MAC from the range.
func TestKubeMacPoolGivesConcurrentVMsDistinctMACs(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	r := macRange(t, s)
	const count = 50
	errs := make([]error, count)
	var wg sync.WaitGroup
	for i := range count {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.c.Create(context.Background(), maskedVM(s.ns, fmt.Sprintf("kmp-%02d", i), ""))
		}()
	}
	wg.Wait()
	seen := map[string]string{}
	for i := range count {
		require.NoError(t, errs[i])
		name := fmt.Sprintf("kmp-%02d", i)
		mac := vmMAC(t, s, name)
		require.True(t, r.Contains(mac), "%s got %q outside %s", name, mac, r)
		require.NotContains(t, seen, mac, "%s and %s share %s", name, seen[mac], mac)
		seen[mac] = name
	}
	// Each answer waited for its reservation to be journaled; once the VMs
	// are stored the controller settles them and the journal empties.
	require.Eventually(t, func() bool {
		cm := &corev1.ConfigMap{}
		err := s.c.Get(context.Background(), crclient.ObjectKey{Namespace: "kubevirt-hyperconverged", Name: "kubemacpool-vm-configmap"}, cm)
		return err == nil && len(cm.Data) == 0
	}, time.Minute, time.Second, "the reservation journal exists and is settled")
}

// TestKubeMacPoolRefusesADuplicateAndFreesADeletedVMsMAC asks for a held
// MAC (refused with upstream's message), then for the same MAC once its
// holder is gone (given).
func TestKubeMacPoolRefusesADuplicateAndFreesADeletedVMsMAC(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	macRange(t, s)
	s.create(maskedVM(s.ns, "holder", ""))
	mac := vmMAC(t, s, "holder")
	err := s.c.Create(context.Background(), maskedVM(s.ns, "thief", mac))
	require.Error(t, err)
	require.Contains(t, err.Error(), kmpDuplicate)

	require.NoError(t, s.c.Delete(context.Background(), maskedVM(s.ns, "holder", "")))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(s.c.Get(context.Background(), s.key("holder"), &kubevirtv1.VirtualMachine{}))
	}, time.Minute, 200*time.Millisecond)
	require.Eventually(t, func() bool {
		return s.c.Create(context.Background(), maskedVM(s.ns, "heir", mac)) == nil
	}, time.Minute, time.Second, "the deleted VM's MAC is free again")
	require.Equal(t, mac, vmMAC(t, s, "heir"))
}
