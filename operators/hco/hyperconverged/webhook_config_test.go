package hyperconverged

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func pathOnly(path string) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hco" + path)}
}

func TestWebhookConfigurationsAreHCOs(t *testing.T) {
	v := ValidatingWebhooks(pathOnly)
	require.Len(t, v, 1)
	require.Equal(t, "validate-hco-v1beta1.kubevirt.io", v[0].Name)
	require.Equal(t, "https://hco/validate-hco-kubevirt-io-v1beta1-hyperconverged", *v[0].ClientConfig.URL)
	require.Equal(t, []admissionregistrationv1.OperationType{"CREATE", "DELETE", "UPDATE"}, v[0].Rules[0].Operations)
	require.Equal(t, []string{"v1beta1"}, v[0].Rules[0].APIVersions)
	require.Equal(t, admissionregistrationv1.Exact, *v[0].MatchPolicy)
	require.Equal(t, admissionregistrationv1.SideEffectClassNone, *v[0].SideEffects)
	require.Equal(t, admissionregistrationv1.Fail, *v[0].FailurePolicy)
	require.Equal(t, int32(10), *v[0].TimeoutSeconds)
	require.Equal(t, []string{"v1beta1", "v1"}, v[0].AdmissionReviewVersions)

	m := MutatingWebhooks(pathOnly, testNS)
	require.Len(t, m, 2)
	ns, hc := m[0], m[1]
	require.Equal(t, "mutate-ns-hco.kubevirt.io", ns.Name)
	require.Equal(t, "https://hco/mutate-ns-hco-kubevirt-io", *ns.ClientConfig.URL)
	require.Equal(t, map[string]string{"kubernetes.io/metadata.name": testNS}, ns.ObjectSelector.MatchLabels)
	require.Equal(t, []admissionregistrationv1.OperationType{"DELETE"}, ns.Rules[0].Operations)
	require.Equal(t, []string{"namespaces"}, ns.Rules[0].Resources)
	require.Equal(t, admissionregistrationv1.SideEffectClassNoneOnDryRun, *ns.SideEffects)
	require.Nil(t, ns.MatchPolicy)
	require.Equal(t, "mutate-hyperconverged-hco-v1beta1.kubevirt.io", hc.Name)
	require.Equal(t, "https://hco/mutate-hco-kubevirt-io-v1beta1-hyperconverged", *hc.ClientConfig.URL)
	require.Equal(t, []admissionregistrationv1.OperationType{"CREATE", "UPDATE"}, hc.Rules[0].Operations)
	require.Equal(t, admissionregistrationv1.Exact, *hc.MatchPolicy)
	require.Equal(t, admissionregistrationv1.SideEffectClassNoneOnDryRun, *hc.SideEffects)
	for _, h := range m {
		require.Equal(t, admissionregistrationv1.Fail, *h.FailurePolicy)
		require.Equal(t, int32(10), *h.TimeoutSeconds)
	}
}

func TestNamespacePolicyKeepsHyperConvergedInTheInstallNamespace(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "hyperconvergeds.hco.kubevirt.io", UID: "crd-uid"}}
	r := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(crd).Build()
	policy, binding, err := NamespacePolicy(context.Background(), r, testNS)
	require.NoError(t, err)

	require.Equal(t, "hyperconverged-namespace-policy", policy.Name)
	require.Equal(t, "hyperconverged-namespace-policy-binding", binding.Name)
	for _, o := range []client.Object{policy, binding} {
		owner := o.GetOwnerReferences()
		require.Len(t, owner, 1)
		require.Equal(t, "CustomResourceDefinition", owner[0].Kind)
		require.Equal(t, crd.UID, owner[0].UID)
		require.True(t, *owner[0].Controller)
		require.Equal(t, "kubevirt-hyperconverged", o.GetLabels()["app"])
		require.Equal(t, "deployment", o.GetLabels()["app.kubernetes.io/component"])
	}
	require.Equal(t, []admissionregistrationv1.Validation{{
		Expression: "request.namespace == 'kubevirt-hyperconverged'",
		Message:    "HyperConverged CR can only be created in the 'kubevirt-hyperconverged' namespace.",
	}}, policy.Spec.Validations)
	rule := policy.Spec.MatchConstraints.ResourceRules[0]
	require.Equal(t, []admissionregistrationv1.OperationType{"CREATE"}, rule.Operations)
	require.Equal(t, []string{"v1", "v1beta1"}, rule.APIVersions)
	require.Equal(t, admissionregistrationv1.Fail, *policy.Spec.FailurePolicy)
	require.Equal(t, "hyperconverged-namespace-policy", binding.Spec.PolicyName)
	require.Equal(t, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}, binding.Spec.ValidationActions)

	_, _, err = NamespacePolicy(context.Background(), fake.NewClientBuilder().WithScheme(testScheme(t)).Build(), testNS)
	require.ErrorContains(t, err, "reading CRD hyperconvergeds.hco.kubevirt.io to own the namespace policy")
}

func TestWebhookObjects(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "hyperconvergeds.hco.kubevirt.io"}}
	r := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(crd).Build()
	objs, err := WebhookObjects(context.Background(), r, testNS)
	require.NoError(t, err)
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind+"/"+o.GetName())
	}
	require.Equal(t, []string{
		"Secret/hyperconverged-cluster-webhook-service-cert",
		"ValidatingWebhookConfiguration/validate-hco.kubevirt.io",
		"MutatingWebhookConfiguration/mutate-hco.kubevirt.io",
		"ValidatingAdmissionPolicy/hyperconverged-namespace-policy",
		"ValidatingAdmissionPolicyBinding/hyperconverged-namespace-policy-binding",
	}, kinds)
}
