package hyperconverged

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/operands"
)

// The admission policy that keeps HyperConverged in the install namespace,
// and its binding, named as upstream's.
const (
	NamespacePolicyName        = "hyperconverged-namespace-policy"
	NamespacePolicyBindingName = NamespacePolicyName + "-binding"
	hyperConvergedCRDName      = "hyperconvergeds.hco.kubevirt.io"
)

// NamespacePolicy is the ValidatingAdmissionPolicy refusing a HyperConverged
// created outside ns, and its binding. The API server enforces it, so the
// namespace is checked even while hco-webhook is down; both are owned by
// the HyperConverged CRD and go with it.
func NamespacePolicy(ctx context.Context, r client.Reader, ns string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := r.Get(ctx, client.ObjectKey{Name: hyperConvergedCRDName}, crd); err != nil {
		return nil, nil, fmt.Errorf("reading CRD %s to own the namespace policy: %w", hyperConvergedCRDName, err)
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name:            name,
			Labels:          policyLabels(),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(crd, apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))},
		}
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta(NamespacePolicyName),
		Spec:       namespacePolicySpec(ns),
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: meta(NamespacePolicyBindingName),
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        NamespacePolicyName,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return policy, binding, nil
}

func namespacePolicySpec(ns string) admissionregistrationv1.ValidatingAdmissionPolicySpec {
	rule := admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{hyperConvergedGroup}, APIVersions: []string{"v1", "v1beta1"},
			Resources: []string{"hyperconvergeds"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope),
		},
	}}
	return admissionregistrationv1.ValidatingAdmissionPolicySpec{
		FailurePolicy: ptr.To(admissionregistrationv1.Fail),
		MatchConstraints: &admissionregistrationv1.MatchResources{
			MatchPolicy:       ptr.To(admissionregistrationv1.Equivalent),
			NamespaceSelector: &metav1.LabelSelector{},
			ObjectSelector:    &metav1.LabelSelector{},
			ResourceRules:     []admissionregistrationv1.NamedRuleWithOperations{rule},
		},
		Validations: []admissionregistrationv1.Validation{{
			Expression: fmt.Sprintf("request.namespace == '%s'", ns),
			Message:    fmt.Sprintf("HyperConverged CR can only be created in the '%s' namespace.", ns),
		}},
	}
}

// policyLabels are the labels HCO puts on what it deploys itself.
func policyLabels() map[string]string {
	return map[string]string{
		operands.LabelApp: hcov1beta1.HyperConvergedName, operands.LabelManagedBy: operands.ManagedByValue,
		operands.LabelVersion: operands.Version, operands.LabelPartOf: operands.PartOfValue,
		operands.LabelComponent: "deployment",
	}
}
