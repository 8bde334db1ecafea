package virtadmission

import (
	"net/http"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/kube/webhookconfig"
)

var createUpd = webhookconfig.CreateUpdate

// migrationsResource is the VirtualMachineInstanceMigration's; with the
// default matchPolicy (Equivalent) a v1alpha3 request reaches its hooks
// as v1.
const migrationsResource = "virtualmachineinstancemigrations"

// ValidatingWebhooks are virt-api's validators (launcher pod evictions,
// VMs, VMIs, replica sets, pools, presets, the KubeVirt delete guard,
// migrations), named as upstream's.
func ValidatingWebhooks(cc webhookconfig.ClientConfig) []admissionregistrationv1.ValidatingWebhook {
	return []admissionregistrationv1.ValidatingWebhook{
		podEvictionWebhook(cc),
		webhookconfig.Validating(cc, "virtualmachine-validator.kubevirt.io", VMValidatePath, webhookconfig.Rules("kubevirt.io", "v1", "virtualmachines", createUpd...)),
		webhookconfig.Validating(cc, "virtualmachineinstances-create-validator.kubevirt.io", VMIValidatePath,
			webhookconfig.Rules("kubevirt.io", "v1", "virtualmachineinstances", admissionregistrationv1.Create)),
		webhookconfig.Validating(cc, "virtualmachinereplicaset-validator.kubevirt.io", VMIRSValidatePath, vmirsRules()),
		// v1beta1 only, as upstream: with the default matchPolicy
		// (Equivalent) a v1alpha1 pool reaches it as v1beta1.
		webhookconfig.Validating(cc, "virtualmachinepool-validator.kubevirt.io", VMPoolValidatePath,
			webhookconfig.Rules("pool.kubevirt.io", "v1beta1", "virtualmachinepools", createUpd...)),
		webhookconfig.Validating(cc, "virtualmachinepreset-validator.kubevirt.io", VMIPresetValidatePath, vmiPresetRules()),
		webhookconfig.Validating(cc, "kubevirt-validator.kubevirt.io", KubeVirtDeletePath, kubeVirtDeleteRules()),
		webhookconfig.Validating(cc, "migration-create-validator.kubevirt.io", MigrationCreateValidatePath,
			webhookconfig.Rules("kubevirt.io", "v1", migrationsResource, admissionregistrationv1.Create)),
		webhookconfig.Validating(cc, "migration-update-validator.kubevirt.io", MigrationUpdateValidatePath,
			webhookconfig.Rules("kubevirt.io", "v1", migrationsResource, admissionregistrationv1.Update)),
	}
}

// podEvictionWebhook is upstream's launcher eviction interceptor: every
// operation on pods/eviction (only CREATE exists), launcher pods alone by
// their name, as upstream's matchCondition, so other evictions never wait
// on virt-api. Marking a VMI is its side effect, skipped on dry runs.
func podEvictionWebhook(cc webhookconfig.ClientConfig) admissionregistrationv1.ValidatingWebhook {
	h := webhookconfig.Validating(cc, "virt-launcher-eviction-interceptor.kubevirt.io", PodEvictionValidatePath,
		webhookconfig.Rules("", "v1", "pods/eviction", admissionregistrationv1.OperationAll))
	onDryRun := admissionregistrationv1.SideEffectClassNoneOnDryRun
	h.SideEffects = &onDryRun
	h.MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "only-vms", Expression: `object.metadata.name.startsWith("virt-launcher")`},
	}
	return h
}

// MutatingWebhooks are virt-api's VirtualMachine and
// VirtualMachineInstance defaulters and its migration mutator.
func MutatingWebhooks(cc webhookconfig.ClientConfig) []admissionregistrationv1.MutatingWebhook {
	hook := func(name, path string, r []admissionregistrationv1.RuleWithOperations) admissionregistrationv1.MutatingWebhook {
		return webhookconfig.Mutating(cc, name, path, r)
	}
	return []admissionregistrationv1.MutatingWebhook{
		hook("virtualmachines-mutator.kubevirt.io", VMMutatePath, webhookconfig.Rules("kubevirt.io", "v1", "virtualmachines", createUpd...)),
		hook("virtualmachineinstances-mutator.kubevirt.io", VMIMutatePath,
			webhookconfig.Rules("kubevirt.io", "v1", "virtualmachineinstances", admissionregistrationv1.Create)),
		hook("migrations-mutator.kubevirt.io", MigrationMutatePath,
			webhookconfig.Rules("kubevirt.io", "v1", migrationsResource, admissionregistrationv1.Create)),
	}
}

// Webhooks are the handlers of virt-api's webhooks by path;
// reader finds the instancetypes and preferences VMs name, the presets
// VMIs match, and the VMI and other migrations a migration is checked
// against.
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

		MigrationCreateValidatePath: &webhook.Admission{Handler: &MigrationCreateValidator{Reader: reader}},
		MigrationUpdateValidatePath: &webhook.Admission{Handler: MigrationUpdateValidator{}},
		MigrationMutatePath:         &webhook.Admission{Handler: MigrationMutator{}},
	}
}

// PodEvictionWebhook is the handler of the launcher eviction interceptor:
// reader reads pods and VMIs as they are now, writer marks VMIs.
func PodEvictionWebhook(reader client.Reader, writer client.Client) http.Handler {
	return &webhook.Admission{Handler: &PodEvictionValidator{Reader: reader, Writer: writer}}
}
