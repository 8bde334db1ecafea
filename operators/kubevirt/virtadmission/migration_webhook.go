package virtadmission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"

	"github.com/virtflow/virtflow/kube/vmistatus"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// MigrationCreateValidator is upstream's migration-create-validator: a
// VirtualMachineInstanceMigration names an existing, unfinished,
// migratable VMI that has no other migration in flight. A VMI that is not
// running yet is admitted; its migration waits for it.
type MigrationCreateValidator struct {
	Reader client.Reader
}

// Handle validates a CREATE.
func (v *MigrationCreateValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	mig := &kubevirtv1.VirtualMachineInstanceMigration{}
	if err := json.Unmarshal(req.Object.Raw, mig); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	spec := field.NewPath("spec")
	switch {
	case mig.Spec.VMIName == "":
		return deny(one(causeOf(metav1.CauseTypeFieldValueRequired, spec.Child("vmiName"), "vmiName is missing")))
	case mig.Spec.Priority != nil:
		return deny(one(cause(spec.Child("priority"), "MigrationPriorityQueue feature gate is not enabled in kubevirt resource")))
	case mig.Spec.SendTo != nil || mig.Spec.Receive != nil:
		return deny(one(cause(spec, "DecentralizedLiveMigration feature gate is not enabled in kubevirt resource")))
	}
	if err := v.migratable(ctx, mig); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	return admission.Allowed("")
}

// migratable is upstream's check of the VMI, in its order.
func (v *MigrationCreateValidator) migratable(ctx context.Context, mig *kubevirtv1.VirtualMachineInstanceMigration) error {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	err := v.Reader.Get(ctx, client.ObjectKey{Namespace: mig.Namespace, Name: mig.Spec.VMIName}, vmi)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("the VMI \"%s/%s\" does not exist", mig.Namespace, mig.Spec.VMIName)
	}
	if err != nil {
		return fmt.Errorf("reading VMI %s/%s: %w", mig.Namespace, mig.Spec.VMIName, err)
	}
	if err := vmistatus.MigrationRefusal(vmi); err != nil {
		return err
	}
	return v.noneInFlight(ctx, mig, vmi.Name)
}

// noneInFlight refuses a second migration while one of the VMI's has not
// finished (one whose phase is not set yet counts).
func (v *MigrationCreateValidator) noneInFlight(ctx context.Context, mig *kubevirtv1.VirtualMachineInstanceMigration, vmi string) error {
	list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	if err := v.Reader.List(ctx, list, client.InNamespace(mig.Namespace), client.MatchingLabels{kubevirtv1.MigrationSelectorLabel: vmi}); err != nil {
		return fmt.Errorf("listing the migrations of VMI %s: %w", vmi, err)
	}
	for _, other := range list.Items {
		if other.UID != mig.UID && !other.IsFinal() {
			return vmistatus.InFlightMigration(string(other.UID), vmi)
		}
	}
	return nil
}

// MigrationUpdateValidator is upstream's migration-update-validator: a
// migration's spec never changes, and the label naming its VMI stays while
// it is in flight.
type MigrationUpdateValidator struct{}

// Handle validates an UPDATE.
func (MigrationUpdateValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	mig, old := &kubevirtv1.VirtualMachineInstanceMigration{}, &kubevirtv1.VirtualMachineInstanceMigration{}
	if err := json.Unmarshal(req.Object.Raw, mig); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if err := json.Unmarshal(req.OldObject.Raw, old); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	spec := field.NewPath("spec")
	if !reflect.DeepEqual(mig.Spec, old.Spec) {
		return deny(one(cause(spec, "update of Migration object's spec is restricted")))
	}
	if old.IsFinal() {
		return admission.Allowed("")
	}
	label := field.NewPath("metadata", "labels").Key(kubevirtv1.MigrationSelectorLabel)
	was, had := old.Labels[kubevirtv1.MigrationSelectorLabel]
	now, has := mig.Labels[kubevirtv1.MigrationSelectorLabel]
	switch {
	case had && !has:
		return deny(one(cause(label, "selector label can't be removed from an in-flight migration")))
	case had && now != was:
		return deny(one(cause(label, "selector label can't be modified on an in-flight migration")))
	}
	return admission.Allowed("")
}
