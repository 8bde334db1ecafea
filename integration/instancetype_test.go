//go:build integration

package integration

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// TestVMTakesItsShapeFromAnInstancetypeAndPreference boots the test guest
// from a VM that names a cluster instancetype and preference the way
// `virtctl create vm` writes them; the qemu guest gets their CPUs and memory.
// The namespace's long name makes the launcher's paths long, which the
// launcher must not trip over.
func TestVMTakesItsShapeFromAnInstancetypeAndPreference(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	cores := instancetypev1beta1.Cores
	it := &instancetypev1beta1.VirtualMachineClusterInstancetype{ObjectMeta: metav1.ObjectMeta{Name: "it.small"},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{
			CPU:    instancetypev1beta1.CPUInstancetype{Guest: 2},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse("320Mi")},
		}}
	pref := &instancetypev1beta1.VirtualMachineClusterPreference{ObjectMeta: metav1.ObjectMeta{Name: "it.cores"},
		Spec: instancetypev1beta1.VirtualMachinePreferenceSpec{CPU: &instancetypev1beta1.CPUPreferences{PreferredCPUTopology: &cores}}}
	for _, o := range []crclient.Object{it, pref} {
		require.NoError(t, n.c.Create(ctx, o))
		defer n.c.Delete(ctx, o)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "instancetypes-and-preferences-shape-this-vm"}}
	require.NoError(t, n.c.Create(ctx, ns))
	defer n.c.Delete(ctx, ns)
	vm := testGuestVM("vmshaped", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns.Name
	vm.Spec.Template.Spec.Domain.Memory = nil
	vm.Spec.Instancetype = &kubevirtv1.InstancetypeMatcher{Kind: "virtualmachineclusterinstancetype", Name: "it.small"}
	vm.Spec.Preference = &kubevirtv1.PreferenceMatcher{Name: "it.cores"}
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)

	v := runningVMI(t, n.c, crclient.ObjectKeyFromObject(vm))
	require.Equal(t, uint32(2), v.Spec.Domain.CPU.Cores, "the preference asks for cores")
	stored := &kubevirtv1.VirtualMachine{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKeyFromObject(vm), stored))
	for _, ref := range []*kubevirtv1.InstancetypeStatusRef{stored.Status.InstancetypeRef, stored.Status.PreferenceRef} {
		require.NotNil(t, ref, "the VM names what it was synced with")
		rev := &appsv1.ControllerRevision{}
		require.NoError(t, n.c.Get(ctx, crclient.ObjectKey{Namespace: ns.Name, Name: ref.ControllerRevisionRef.Name}, rev),
			"and keeps it in a ControllerRevision")
		require.True(t, metav1.IsControlledBy(rev, stored))
	}
	require.Equal(t, "320Mi", v.Spec.Domain.Memory.Guest.String())
	pods := &corev1.PodList{}
	require.NoError(t, n.c.List(ctx, pods, crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(v.UID)}))
	require.Len(t, pods.Items, 1)
	mem := pods.Items[0].Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
	require.Greater(t, mem.Value(), int64(320<<20), "the launcher pod requests the instancetype's memory plus overhead")

	var cmdline string
	require.Eventually(t, func() bool {
		out, _ := exec.Command("pgrep", "-af", "guest="+ns.Name+"_vmshaped").Output()
		cmdline = string(out)
		return cmdline != ""
	}, time.Minute, 200*time.Millisecond)
	require.True(t, strings.Contains(cmdline, "-smp 2,sockets=1,dies=1,cores=2,threads=1"), "qemu runs 2 cores: %s", cmdline)
	require.True(t, strings.Contains(cmdline, "-m size=327680k") || strings.Contains(cmdline, "-m 320"), "qemu gets 320Mi: %s", cmdline)
}

// TestAVMMayNameAnInstancetypeBeforeItExists follows upstream's admission:
// the VM is admitted, waits Stopped with the API server's words in its
// Failure condition, and starts once the instancetype appears. A VM that
// conflicts with an instancetype that exists is refused with one cause per
// field, through the API server.
func TestAVMMayNameAnInstancetypeBeforeItExists(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	vm := testGuestVM("later", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	vm.Spec.Template.Spec.Domain.Memory = nil
	vm.Spec.Instancetype = &kubevirtv1.InstancetypeMatcher{Kind: "VirtualMachineInstancetype", Name: "later"}
	require.NoError(t, n.c.Create(ctx, vm), "upstream admits a VM whose instancetype does not exist yet")
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	var failure *kubevirtv1.VirtualMachineCondition
	require.Eventually(t, func() bool {
		got := &kubevirtv1.VirtualMachine{}
		if n.c.Get(ctx, key, got) != nil {
			return false
		}
		for i, c := range got.Status.Conditions {
			if c.Type == kubevirtv1.VirtualMachineFailure {
				failure = &got.Status.Conditions[i]
			}
		}
		return failure != nil && got.Status.PrintableStatus == kubevirtv1.VirtualMachineStatusStopped
	}, time.Minute, 200*time.Millisecond)
	require.Equal(t, "FailedFindInstancetype", failure.Reason)
	require.Equal(t, `virtualmachineinstancetypes.instancetype.kubevirt.io "later" not found`, failure.Message)

	it := &instancetypev1beta1.VirtualMachineInstancetype{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "later"},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{CPU: instancetypev1beta1.CPUInstancetype{Guest: 1},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse("256Mi")}}}
	require.NoError(t, n.c.Create(ctx, it))
	v := runningVMI(t, n.c, key)
	require.Equal(t, "256Mi", v.Spec.Domain.Memory.Guest.String())
	require.Equal(t, "later", v.Annotations[kubevirtv1.InstancetypeAnnotation])

	clash := testGuestVM("clash", kubevirtv1.RunStrategyHalted)
	clash.Namespace = ns
	clash.Spec.Instancetype = vm.Spec.Instancetype
	clash.Spec.Template.Spec.Domain.CPU = &kubevirtv1.CPU{Sockets: 2, Threads: 1}
	err := n.c.Create(ctx, clash)
	require.EqualError(t, err, `admission webhook "virtualmachine-validator.kubevirt.io" denied the request: `+
		`VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type, `+
		`VM field(s) spec.template.spec.domain.cpu.threads conflicts with selected instance type, `+
		`VM field(s) spec.template.spec.domain.memory.guest conflicts with selected instance type`)
}
