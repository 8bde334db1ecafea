// Package webhookconfig builds the entries of Validating- and
// MutatingWebhookConfigurations the way every virtflow webhook is
// registered: fail closed, no side effects, a ten-second timeout and
// AdmissionReview v1, so the products' operators differ only in names,
// paths and rules.
package webhookconfig

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// ClientConfig says how the API server reaches the webhook at a path.
type ClientConfig func(path string) admissionregistrationv1.WebhookClientConfig

var (
	failClosed  = admissionregistrationv1.Fail
	noSideFx    = admissionregistrationv1.SideEffectClassNone
	hookTimeout = int32(10)
	reviewV1    = []string{"v1"}
)

// CreateUpdate are the operations most validators and defaulters see.
var CreateUpdate = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}

// Rules is one rule for a resource of a group version.
func Rules(group, version, resource string, ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
		APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource},
	}}}
}

// Validating is a fail-closed validating webhook without side effects.
func Validating(cc ClientConfig, name, path string, r []admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name: name, ClientConfig: cc(path), Rules: r, FailurePolicy: &failClosed,
		SideEffects: &noSideFx, TimeoutSeconds: &hookTimeout, AdmissionReviewVersions: reviewV1,
	}
}

// Mutating is a fail-closed mutating webhook without side effects.
func Mutating(cc ClientConfig, name, path string, r []admissionregistrationv1.RuleWithOperations) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: name, ClientConfig: cc(path), Rules: r, FailurePolicy: &failClosed,
		SideEffects: &noSideFx, TimeoutSeconds: &hookTimeout, AdmissionReviewVersions: reviewV1,
	}
}
