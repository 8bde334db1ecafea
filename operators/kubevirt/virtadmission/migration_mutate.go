package virtadmission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// MigrationMutator is upstream's migrations-mutator: every new
// VirtualMachineInstanceMigration is labelled with its VMI's name, which
// the create validator and virtctl migrate-cancel select on, and holds
// the finalizer virt-controller removes once the migration is final, so a
// deleted migration is still there to be aborted.
type MigrationMutator struct{}

// Handle mutates a CREATE.
func (MigrationMutator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create {
		return admission.Allowed("")
	}
	mig := &kubevirtv1.VirtualMachineInstanceMigration{}
	if err := json.Unmarshal(req.Object.Raw, mig); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachineInstanceMigration: %w", err))
	}
	markMigration(mig)
	return patched(req, mig)
}

// markMigration sets the label and finalizer. Upstream appends the
// finalizer unconditionally; a migration created with it already gets it
// once here, which is what the controller needs and all it removes.
func markMigration(mig *kubevirtv1.VirtualMachineInstanceMigration) {
	if mig.Labels == nil {
		mig.Labels = map[string]string{}
	}
	mig.Labels[kubevirtv1.MigrationSelectorLabel] = mig.Spec.VMIName
	if !slices.Contains(mig.Finalizers, kubevirtv1.VirtualMachineInstanceMigrationFinalizer) {
		mig.Finalizers = append(mig.Finalizers, kubevirtv1.VirtualMachineInstanceMigrationFinalizer)
	}
}
