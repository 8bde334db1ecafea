package operands

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
)

// HCO's jsonpatch annotations: its documented way to set what the
// HyperConverged does not expose, each a JSON patch of one component CR's
// spec.
const (
	JSONPatchKubeVirtAnnotation      = "kubevirt.kubevirt.io/jsonpatch"
	JSONPatchCDIAnnotation           = "containerizeddataimporter.kubevirt.io/jsonpatch"
	JSONPatchNetworkAddonsAnnotation = "networkaddonsconfigs.kubevirt.io/jsonpatch"
	JSONPatchSSPAnnotation           = "ssp.kubevirt.io/jsonpatch"
)

// patchAnnotation names the annotation that patches obj's kind; none for a
// kind HCO offers no patch for.
func patchAnnotation(obj client.Object) string {
	switch obj.(type) {
	case *kubevirtv1.KubeVirt:
		return JSONPatchKubeVirtAnnotation
	case *cdiv1beta1.CDI:
		return JSONPatchCDIAnnotation
	case *nacv1.NetworkAddonsConfig:
		return JSONPatchNetworkAddonsAnnotation
	case *sspv1beta3.SSP:
		return JSONPatchSSPAnnotation
	}
	return ""
}

// Patched is Desired with the HyperConverged's jsonpatch annotations
// applied, as HCO applies them to the component CRs it writes.
func Patched(hc *hcov1beta1.HyperConverged) ([]client.Object, error) {
	objs := Desired(hc)
	for _, obj := range objs {
		if err := ApplyJSONPatch(hc, obj); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// JSONPatchAnnotations are the jsonpatch annotations, in HCO's order.
var JSONPatchAnnotations = []string{JSONPatchKubeVirtAnnotation, JSONPatchCDIAnnotation, JSONPatchNetworkAddonsAnnotation, JSONPatchSSPAnnotation}

// JSONPatchChanges counts the operations of each jsonpatch annotation, as
// HCO does for its TaintedConfiguration condition and
// kubevirt_hco_unsafe_modifications: one that does not parse counts none.
func JSONPatchChanges(hc *hcov1beta1.HyperConverged) map[string]int {
	out := map[string]int{}
	for _, a := range JSONPatchAnnotations {
		if raw, ok := hc.Annotations[a]; ok {
			if patch, err := jsonpatch.DecodePatch([]byte(raw)); err == nil {
				out[a] = len(patch)
				continue
			}
		}
		out[a] = 0
	}
	return out
}

// ApplyJSONPatch applies the HyperConverged's annotation for obj's kind,
// if any, to obj, with HCO's message when it cannot.
func ApplyJSONPatch(hc *hcov1beta1.HyperConverged, obj client.Object) error {
	annotation := patchAnnotation(obj)
	raw, ok := hc.Annotations[annotation]
	if annotation == "" || !ok {
		return nil
	}
	if err := applySpecPatch(obj, raw); err != nil {
		return fmt.Errorf("invalid jsonPatch in the %s annotation: %v", annotation, err)
	}
	return nil
}

// applySpecPatch applies a JSON patch that may only touch spec fields.
func applySpecPatch(obj client.Object, raw string) error {
	patch, err := jsonpatch.DecodePatch([]byte(raw))
	if err != nil {
		return err
	}
	for _, op := range patch {
		path, err := op.Path()
		if err != nil {
			return err
		}
		if !strings.HasPrefix(path, "/spec/") {
			return errors.New("can only modify spec fields")
		}
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	patched, err := patch.Apply(doc)
	if err != nil {
		return err
	}
	return json.Unmarshal(patched, obj)
}
