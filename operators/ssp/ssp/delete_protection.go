package ssp

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DeleteProtectionPolicy is upstream's ValidatingAdmissionPolicy (and its
// binding) that refuses deleting a VM labelled
// kubevirt.io/vm-delete-protection=true.
const DeleteProtectionPolicy = "kubevirt-vm-deletion-protection"

// deleteProtectionCEL passes unless the old object carries the label with
// a true value, in upstream's expression.
const deleteProtectionCEL = `(!has(oldObject.metadata.labels) || !(variables.label in oldObject.metadata.labels) || ` +
	`!oldObject.metadata.labels[variables.label].matches('^(true|True)$'))`

// DeleteProtection is the policy and its binding, as ssp-operator's
// vm-delete-protection operand installs them.
func DeleteProtection() []client.Object {
	var versions []string
	for _, v := range kubevirtv1.ApiSupportedVersions {
		versions = append(versions, v.Name)
	}
	l := map[string]string{"app.kubernetes.io/managed-by": "ssp-operator", "app.kubernetes.io/component": "vm-deletion-protection",
		"app.kubernetes.io/name": "vm-delete-protection"}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: DeleteProtectionPolicy, Labels: l},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{kubevirtv1.SchemeGroupVersion.Group}, APIVersions: versions,
						Resources: []string{"virtualmachines"}},
				},
			}}},
			Variables: []admissionregistrationv1.Variable{{Name: "label", Expression: `string('kubevirt.io/vm-delete-protection')`}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: deleteProtectionCEL,
				MessageExpression: `'VirtualMachine ' + string(oldObject.metadata.name) + ' cannot be deleted, ` +
					`disable/remove label \'kubevirt.io/vm-delete-protection\' from VirtualMachine before deleting it'`,
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: DeleteProtectionPolicy, Labels: l},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        DeleteProtectionPolicy,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return []client.Object{policy, binding}
}
