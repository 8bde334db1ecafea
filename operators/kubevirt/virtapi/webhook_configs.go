package virtapi

import (
	"net/http"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// ClientConfig says how the API server reaches the webhook at a path.
type ClientConfig func(path string) admissionregistrationv1.WebhookClientConfig

var (
	failClosed = admissionregistrationv1.Fail
	noSideFx   = admissionregistrationv1.SideEffectClassNone
	hookTimout = int32(10)
	reviewV1   = []string{"v1"}
	createUpd  = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
)

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
		SideEffects: &noSideFx, TimeoutSeconds: &hookTimout, AdmissionReviewVersions: reviewV1,
	}
}

// ValidatingWebhooks are virt-api's VirtualMachine and
// VirtualMachineInstance validators, named as upstream's.
func ValidatingWebhooks(cc ClientConfig) []admissionregistrationv1.ValidatingWebhook {
	return []admissionregistrationv1.ValidatingWebhook{
		Validating(cc, "virtualmachine-validator.kubevirt.io", VMValidatePath, Rules("kubevirt.io", "v1", "virtualmachines", createUpd...)),
		Validating(cc, "virtualmachineinstances-create-validator.kubevirt.io", VMIValidatePath,
			Rules("kubevirt.io", "v1", "virtualmachineinstances", admissionregistrationv1.Create)),
		Validating(cc, "virtualmachinereplicaset-validator.kubevirt.io", VMIRSValidatePath, vmirsRules()),
		// v1beta1 only, as upstream: with the default matchPolicy
		// (Equivalent) a v1alpha1 pool reaches it as v1beta1.
		Validating(cc, "virtualmachinepool-validator.kubevirt.io", VMPoolValidatePath,
			Rules("pool.kubevirt.io", "v1beta1", "virtualmachinepools", createUpd...)),
		Validating(cc, "virtualmachinepreset-validator.kubevirt.io", VMIPresetValidatePath, vmiPresetRules()),
		Validating(cc, "kubevirt-validator.kubevirt.io", KubeVirtDeletePath, kubeVirtDeleteRules()),
	}
}

// MutatingWebhooks are virt-api's VirtualMachine and
// VirtualMachineInstance defaulters.
func MutatingWebhooks(cc ClientConfig) []admissionregistrationv1.MutatingWebhook {
	hook := func(name, path string, r []admissionregistrationv1.RuleWithOperations) admissionregistrationv1.MutatingWebhook {
		return admissionregistrationv1.MutatingWebhook{
			Name: name, ClientConfig: cc(path), Rules: r, FailurePolicy: &failClosed,
			SideEffects: &noSideFx, TimeoutSeconds: &hookTimout, AdmissionReviewVersions: reviewV1,
		}
	}
	return []admissionregistrationv1.MutatingWebhook{
		hook("virtualmachines-mutator.kubevirt.io", VMMutatePath, Rules("kubevirt.io", "v1", "virtualmachines", createUpd...)),
		hook("virtualmachineinstances-mutator.kubevirt.io", VMIMutatePath,
			Rules("kubevirt.io", "v1", "virtualmachineinstances", admissionregistrationv1.Create)),
	}
}

// Webhooks are the handlers of virt-api's webhooks by path;
// reader finds the instancetypes and preferences VMs name and the
// presets VMIs match.
func Webhooks(dec admission.Decoder, reader client.Reader) map[string]http.Handler {
	return map[string]http.Handler{
		VMValidatePath:  &webhook.Admission{Handler: &VMValidator{Decoder: dec, Reader: reader}},
		VMIValidatePath: &webhook.Admission{Handler: &VMIValidator{Decoder: dec}},
		VMMutatePath:    &webhook.Admission{Handler: &VMMutator{Decoder: dec}},
		VMIMutatePath:   &webhook.Admission{Handler: &VMIMutator{Decoder: dec, Reader: reader}},

		VMIRSValidatePath: &webhook.Admission{Handler: &VMIRSValidator{}},

		VMPoolValidatePath: &webhook.Admission{Handler: &VMPoolValidator{}},

		VMIPresetValidatePath: &webhook.Admission{Handler: &VMIPresetValidator{}},

		KubeVirtDeletePath: &webhook.Admission{Handler: &KubeVirtDeletionValidator{Reader: reader}},
	}
}
