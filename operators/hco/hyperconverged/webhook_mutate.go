package hyperconverged

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// CDIImmediateBindAnnotation asks CDI to bind a golden image's PVC at once
// rather than waiting for a first consumer.
const CDIImmediateBindAnnotation = "cdi.kubevirt.io/storage.bind.immediate.requested"

// ignoreOperationMessage is what the mutators answer operations they skip.
const ignoreOperationMessage = "ignoring other operations"

// Mutator fills in what HCO's v1beta1 defaulting webhook does on CREATE and
// UPDATE of a HyperConverged: golden-image template defaults, the
// eviction strategy the cluster's shape calls for, the new spelling of the
// mediated device types and, on create, KSM.
type Mutator struct {
	Decoder admission.Decoder
}

// Handle mutates CREATE and UPDATE and lets anything else through.
func (m *Mutator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed(ignoreOperationMessage)
	}
	hc := &hcov1beta1.HyperConverged{}
	if err := m.Decoder.Decode(req, hc); err != nil {
		return admission.Errored(http.StatusBadRequest, errors.New("failed to parse the HyperConverged"))
	}
	patches := dictPatches(hc.Spec.DataImportCronTemplates)
	patches = append(patches, evictionStrategyPatches(hc)...)
	patches = append(patches, mediatedDeviceTypesPatches(hc.Spec.MediatedDevicesConfiguration)...)
	if req.Operation == admissionv1.Create && hc.Spec.KSMConfiguration == nil {
		patches = append(patches, jsonpatch.NewOperation("add", "/spec/ksmConfiguration", hcov1beta1.KSMConfiguration{}))
	}
	if len(patches) == 0 {
		return admission.Allowed("")
	}
	return admission.Patched("mutated", patches...)
}

// dictPatches ask for immediate binding, no retention and one kept import
// on every template that does not say otherwise.
func dictPatches(dicts []hcov1beta1.DataImportCronTemplate) []jsonpatch.JsonPatchOperation {
	var patches []jsonpatch.JsonPatchOperation
	for i, dict := range dicts {
		base := fmt.Sprintf("/spec/dataImportCronTemplates/%d", i)
		if dict.Annotations == nil {
			patches = append(patches, jsonpatch.NewOperation("add", base+"/metadata/annotations", map[string]string{CDIImmediateBindAnnotation: "true"}))
		} else if _, ok := dict.Annotations[CDIImmediateBindAnnotation]; !ok {
			patches = append(patches, jsonpatch.NewOperation("add", base+"/metadata/annotations/cdi.kubevirt.io~1storage.bind.immediate.requested", "true"))
		}
		if dict.Spec == nil {
			continue
		}
		if dict.Spec.RetentionPolicy == nil {
			patches = append(patches, jsonpatch.NewOperation("add", base+"/spec/retentionPolicy", "None"))
		}
		if dict.Spec.ImportsToKeep == nil {
			patches = append(patches, jsonpatch.NewOperation("add", base+"/spec/importsToKeep", 1))
		}
	}
	return patches
}

// evictionStrategyPatches restore a removed eviction strategy once the
// operator has learnt whether the infrastructure is highly available; a
// new HyperConverged has no such status yet, and its first reconcile
// fills the strategy in (ensureEvictionStrategy).
func evictionStrategyPatches(hc *hcov1beta1.HyperConverged) []jsonpatch.JsonPatchOperation {
	ha := hc.Status.InfrastructureHighlyAvailable
	if ha == nil || hc.Spec.EvictionStrategy != nil {
		return nil
	}
	return []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("replace", "/spec/evictionStrategy", defaultEvictionStrategy(*ha))}
}

// mediatedDeviceTypesPatches copy the deprecated spelling into the new
// field where only the old one is set.
//
//nolint:staticcheck // reading the deprecated spelling is the point
func mediatedDeviceTypesPatches(mdc *hcov1beta1.MediatedDevicesConfiguration) []jsonpatch.JsonPatchOperation {
	if mdc == nil {
		return nil
	}
	var patches []jsonpatch.JsonPatchOperation
	if len(mdc.MediatedDevicesTypes) > 0 && len(mdc.MediatedDeviceTypes) == 0 {
		patches = append(patches, jsonpatch.NewOperation("add", "/spec/mediatedDevicesConfiguration/mediatedDeviceTypes", mdc.MediatedDevicesTypes))
	}
	for i, n := range mdc.NodeMediatedDeviceTypes {
		if len(n.MediatedDevicesTypes) > 0 && len(n.MediatedDeviceTypes) == 0 {
			path := fmt.Sprintf("/spec/mediatedDevicesConfiguration/nodeMediatedDeviceTypes/%d/mediatedDeviceTypes", i)
			patches = append(patches, jsonpatch.NewOperation("add", path, n.MediatedDevicesTypes))
		}
	}
	return patches
}
