package operands

import (
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestTheKubeVirtJSONPatchAnnotationReachesTheKubeVirtCR(t *testing.T) {
	hc := newHC()
	hc.Annotations = map[string]string{JSONPatchKubeVirtAnnotation: `[{"op":"add","path":"/spec/configuration/developerConfiguration/featureGates/-","value":"PasstBinding"}]`}
	objs, err := Patched(hc)
	require.NoError(t, err)
	var kv *kubevirtv1.KubeVirt
	for _, o := range objs {
		if k, ok := o.(*kubevirtv1.KubeVirt); ok {
			kv = k
		}
	}
	require.NotNil(t, kv)
	gates := kv.Spec.Configuration.DeveloperConfiguration.FeatureGates
	require.Equal(t, "PasstBinding", gates[len(gates)-1])
	require.Contains(t, gates, "CPUManager", "HCO's own gates stay")
	require.Equal(t, 1, JSONPatchChanges(hc)[JSONPatchKubeVirtAnnotation])
	require.Zero(t, JSONPatchChanges(hc)[JSONPatchCDIAnnotation])
}

func TestABadJSONPatchIsRefusedWithHCOsWords(t *testing.T) {
	hc := newHC()
	hc.Annotations = map[string]string{JSONPatchCDIAnnotation: `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`}
	_, err := Patched(hc)
	require.EqualError(t, err, "invalid jsonPatch in the containerizeddataimporter.kubevirt.io/jsonpatch annotation: can only modify spec fields")
	hc.Annotations = map[string]string{JSONPatchSSPAnnotation: `not a patch`}
	require.Zero(t, JSONPatchChanges(hc)[JSONPatchSSPAnnotation], "as HCO, a patch that does not parse counts no change")
}

// HCO's deployVmConsoleProxy reaches the SSP, whose operator then names the
// proxy as not built instead of HCO dropping the setting.
func TestDeployVMConsoleProxyAsksTheSSPForIt(t *testing.T) {
	hc := newHC()
	require.Nil(t, desiredSSP(hc).Spec.TokenGenerationService)
	yes := true
	hc.Spec.DeployVMConsoleProxy = &yes
	require.True(t, desiredSSP(hc).Spec.TokenGenerationService.Enabled)
}
