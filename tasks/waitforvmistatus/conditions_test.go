package waitforvmistatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func vmiIn(phase kubevirtv1.VirtualMachineInstancePhase) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", Labels: map[string]string{"app": "web"}},
		Status:     kubevirtv1.VirtualMachineInstanceStatus{Phase: phase, NodeName: "node1"},
	}
}

func TestConditionsEvaluateFieldsAsLabels(t *testing.T) {
	cases := []struct {
		condition string
		vmi       *kubevirtv1.VirtualMachineInstance
		want      bool
	}{
		{"status.phase == Succeeded", vmiIn(kubevirtv1.Succeeded), true},
		{"status.phase = Succeeded", vmiIn(kubevirtv1.Running), false},
		{"status.phase != Running", vmiIn(kubevirtv1.Failed), true},
		{"status.phase in (Failed, Unknown)", vmiIn(kubevirtv1.Unknown), true},
		{"status.phase in (Failed, Unknown)", vmiIn(kubevirtv1.Running), false},
		{"status.phase notin (Failed, Unknown)", vmiIn(kubevirtv1.Running), true},
		{"status.phase == Running, status.nodeName == node1", vmiIn(kubevirtv1.Running), true},
		{"status.phase == Running, status.nodeName == node2", vmiIn(kubevirtv1.Running), false},
		{"metadata.labels.app == web", vmiIn(kubevirtv1.Running), true},
		// A map key the VMI lacks is an absent label...
		{"metadata.labels.tier", vmiIn(kubevirtv1.Running), false},
		{"!metadata.labels.tier", vmiIn(kubevirtv1.Running), true},
		{"metadata.labels.tier != db", vmiIn(kubevirtv1.Running), true},
		// ...while a struct field is present even when empty.
		{"status.phase", vmiIn(""), true},
		{"status.phase == Running", vmiIn(""), false},
		{"status.activePods", vmiIn(kubevirtv1.Running), true},
		{"metadata.generation > 0", vmiIn(kubevirtv1.Running), false},
		{"metadata.generation < 1", vmiIn(kubevirtv1.Running), true},
		// A prefixed key is a path too: the prefix's dots separate fields.
		{"kubevirt.io/foo == x", vmiIn(kubevirtv1.Running), false},
	}
	for _, tc := range cases {
		c, err := parseCondition(tc.condition)
		require.NoError(t, err, tc.condition)
		assert.Equal(t, tc.want, c.fulfilledBy(tc.vmi), "%s on %q", tc.condition, tc.vmi.Status.Phase)
	}
}

func TestAnEmptyConditionIsNeverChecked(t *testing.T) {
	c, err := parseCondition("  ")
	require.NoError(t, err)
	assert.True(t, c.empty())
	assert.False(t, c.fulfilledBy(vmiIn(kubevirtv1.Running)))
}

func TestConditionErrors(t *testing.T) {
	_, err := parseCondition("status.phase in Running")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not parse condition status.phase in Running: ")

	// Braces are not in label keys, so a path is never written as one.
	_, err = parseCondition("{.status.phase} == Running")
	assert.ErrorContains(t, err, "could not parse condition {.status.phase} == Running: ")
}
