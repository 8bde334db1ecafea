//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

func testPreset(ns, name string, labels map[string]string, d kubevirtv1.DomainSpec) *kubevirtv1.VirtualMachineInstancePreset {
	return &kubevirtv1.VirtualMachineInstancePreset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kubevirtv1.VirtualMachineInstancePresetSpec{Selector: metav1.LabelSelector{MatchLabels: labels}, Domain: &d}}
}

// TestAPresetShapesTheVMIsItSelects creates a preset giving VMIs labelled
// flavor=small a CPU topology and a memory request, then such a VMI, both
// with kubectl: the stored VMI has both, the preset's annotation, and
// kubectl prints upstream's deprecation warning each time.
func TestAPresetShapesTheVMIsItSelects(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	small := map[string]string{"flavor": "small"}
	p := testPreset(ns, "small", small, kubevirtv1.DomainSpec{
		CPU:       &kubevirtv1.CPU{Sockets: 1, Cores: 2, Threads: 1},
		Resources: kubevirtv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("320Mi")}},
	})
	p.TypeMeta = metav1.TypeMeta{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachineInstancePreset"}
	require.Contains(t, kubectlCreate(t, n, p), presetWarning, "the CRD deprecates v1 presets")

	v := testGuestVMI("preset1")
	v.UID, v.Namespace, v.Labels = "", ns, small
	v.TypeMeta = metav1.TypeMeta{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachineInstance"}
	require.Contains(t, kubectlCreate(t, n, v), presetWarning, "the VMI mutator warns of the preset applied")
	key := crclient.ObjectKeyFromObject(v)
	defer deleteVMIAndWait(t, n.c, key)

	got := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, n.c.Get(ctx, key, got))
	require.Equal(t, "kubevirt.io/v1", got.Annotations["virtualmachinepreset.kubevirt.io/small"])
	require.NotNil(t, got.Spec.Domain.CPU)
	require.Equal(t, [3]uint32{1, 2, 1}, [3]uint32{got.Spec.Domain.CPU.Sockets, got.Spec.Domain.CPU.Cores, got.Spec.Domain.CPU.Threads})
	mem := got.Spec.Domain.Resources.Requests[corev1.ResourceMemory]
	require.Equal(t, "320Mi", mem.String())
}

const presetWarning = "kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2."

// kubectlCreate creates obj with kubectl, which prints the warnings the
// API server returns, and gives its output.
func kubectlCreate(t *testing.T, n *upRun, obj any) string {
	t.Helper()
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	cmd := n.kubectl("create", "-f", "-")
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// TestConflictingPresetsRefuseTheVMI: two presets selecting the same VMI
// that disagree on its CPU make the mutating webhook refuse it, as
// upstream, and a preset without a domain is refused by its validator.
func TestConflictingPresetsRefuseTheVMI(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	torn := map[string]string{"flavor": "torn"}
	require.NoError(t, n.c.Create(ctx, testPreset(ns, "two", torn, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 2}})))
	require.NoError(t, n.c.Create(ctx, testPreset(ns, "four", torn, kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 4}})))

	v := testGuestVMI("preset2")
	v.UID, v.Namespace, v.Labels = "", ns, torn
	err := n.c.Create(ctx, v)
	require.Error(t, err)
	require.Contains(t, err.Error(), `admission webhook "virtualmachineinstances-mutator.kubevirt.io" denied the request: `+
		`VirtualMachinePresets cannot be applied due to conflicts: presets 'two' and 'four' conflict: spec.cpu: `)

	bare := testPreset(ns, "bare", nil, kubevirtv1.DomainSpec{})
	bare.Spec.Domain = nil
	require.EqualError(t, n.c.Create(ctx, bare),
		`admission webhook "virtualmachinepreset-validator.kubevirt.io" denied the request: missing domain.`)
}

// deleteVMIAndWait deletes a VMI and waits until it and its launcher are
// gone, so no guest outlives the test.
func deleteVMIAndWait(t *testing.T, c crclient.Client, key crclient.ObjectKey) {
	ctx := context.Background()
	v := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	if err := c.Delete(ctx, v); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting VMI %s: %v", key, err)
		return
	}
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(c.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{}))
	}, 2*time.Minute, 200*time.Millisecond, "VMI %s was not removed", key)
}
