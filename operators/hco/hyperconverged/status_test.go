package hyperconverged

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/operands"
)

// A jsonpatch annotation that changes something taints the configuration;
// without one the condition is gone, not False, as HCO keeps it.
func TestAJSONPatchAnnotationTaintsTheConfiguration(t *testing.T) {
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Generation: 3, Annotations: map[string]string{
		operands.JSONPatchKubeVirtAnnotation: `[{"op":"add","path":"/spec/configuration/developerConfiguration/featureGates/-","value":"PasstBinding"}]`}}}
	taint(hc)
	cond := meta.FindStatusCondition(hc.Status.Conditions, hcov1beta1.ConditionTaintedConfiguration)
	require.NotNil(t, cond)
	require.Equal(t, metav1.ConditionTrue, cond.Status)
	require.Equal(t, "UnsupportedFeatureAnnotation", cond.Reason)
	require.Equal(t, "Unsupported feature was activated via an HCO annotation", cond.Message)

	hc.Annotations[operands.JSONPatchKubeVirtAnnotation] = `[]`
	taint(hc)
	require.Nil(t, meta.FindStatusCondition(hc.Status.Conditions, hcov1beta1.ConditionTaintedConfiguration))
}
