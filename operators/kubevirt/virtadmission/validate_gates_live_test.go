package virtadmission

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func kubeVirtWithGates(gates ...string) *kubevirtv1.KubeVirt {
	return &kubevirtv1.KubeVirt{Spec: kubevirtv1.KubeVirtSpec{Configuration: kubevirtv1.KubeVirtConfiguration{
		DeveloperConfiguration: &kubevirtv1.DeveloperConfiguration{FeatureGates: gates}}}}
}

// A gate the KubeVirt CR turns on is honoured at once; one whose feature
// virtflow lacks stays off whatever the CR says.
func TestTheKubeVirtCRTurnsOnlyLiveGatesOn(t *testing.T) {
	t.Cleanup(func() { SetFeatureGates(nil) })
	spec := validSpec()
	withNetworks([]kubevirtv1.Interface{{Name: "a", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{
		PasstBinding: &kubevirtv1.InterfacePasstBinding{}}}}, podNet("a"))(&spec)
	refusals := func() int { return len(validateBindings(field.NewPath("spec"), &spec)) }

	require.Equal(t, 1, refusals(), "off by default, as HCO deploys")
	SetFeatureGates(kubeVirtWithGates("PasstBinding", gateSidecar))
	require.Zero(t, refusals(), "turned on through the KubeVirt CR")
	require.False(t, gateEnabled(gateSidecar), "no sidecar hooks here: the gate stays off")
	require.True(t, gateEnabled("CPUManager"), "HCO's own gates hold")
	SetFeatureGates(kubeVirtWithGates())
	require.Equal(t, 1, refusals(), "turned off again")
	SetFeatureGates(nil)
	require.Equal(t, 1, refusals())
}
