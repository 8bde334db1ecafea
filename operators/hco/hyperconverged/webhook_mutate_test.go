package hyperconverged

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

func TestMutatorPatches(t *testing.T) {
	spec := &hcov1beta1.DataImportCronSpec{Schedule: "* * * * *"}
	cases := []struct {
		name   string
		op     admissionv1.Operation
		modify func(*hcov1beta1.HyperConverged)
		want   []jsonpatch.JsonPatchOperation
	}{
		{"create turns KSM on", admissionv1.Create, func(*hcov1beta1.HyperConverged) {},
			[]jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("add", "/spec/ksmConfiguration", map[string]any{})}},
		{"update leaves KSM as it is", admissionv1.Update, func(*hcov1beta1.HyperConverged) {}, nil},
		{"templates get immediate binding, no retention, one import", admissionv1.Update, func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{
				{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: spec},
				{ObjectMeta: metav1.ObjectMeta{Name: "b", Annotations: map[string]string{"x": "y"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{CDIImmediateBindAnnotation: "false"}}},
			}
		}, []jsonpatch.JsonPatchOperation{
			jsonpatch.NewOperation("add", "/spec/dataImportCronTemplates/0/metadata/annotations", map[string]any{CDIImmediateBindAnnotation: "true"}),
			jsonpatch.NewOperation("add", "/spec/dataImportCronTemplates/0/spec/retentionPolicy", "None"),
			jsonpatch.NewOperation("add", "/spec/dataImportCronTemplates/0/spec/importsToKeep", float64(1)),
			jsonpatch.NewOperation("add", "/spec/dataImportCronTemplates/1/metadata/annotations/cdi.kubevirt.io~1storage.bind.immediate.requested", "true"),
		}},
		{"eviction strategy follows the infrastructure", admissionv1.Update, func(hc *hcov1beta1.HyperConverged) {
			hc.Status.InfrastructureHighlyAvailable = ptr.To(true)
		}, []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("replace", "/spec/evictionStrategy", "LiveMigrate")}},
		{"single node evicts nothing", admissionv1.Update, func(hc *hcov1beta1.HyperConverged) {
			hc.Status.InfrastructureHighlyAvailable = ptr.To(false)
		}, []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("replace", "/spec/evictionStrategy", "None")}},
		{"a chosen eviction strategy stays", admissionv1.Update, func(hc *hcov1beta1.HyperConverged) {
			hc.Status.InfrastructureHighlyAvailable = ptr.To(false)
			hc.Spec.EvictionStrategy = ptr.To(hcov1beta1.EvictionStrategyExternal)
		}, nil},
		{"old mdev spelling is copied", admissionv1.Update, func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.MediatedDevicesConfiguration = &hcov1beta1.MediatedDevicesConfiguration{
				MediatedDevicesTypes: []string{"nvidia-222"},
				NodeMediatedDeviceTypes: []hcov1beta1.NodeMediatedDeviceTypesConfig{
					{MediatedDeviceTypes: []string{"nvidia-1"}, MediatedDevicesTypes: []string{"nvidia-1"}},
					{MediatedDevicesTypes: []string{"nvidia-2"}},
				}}
		}, []jsonpatch.JsonPatchOperation{
			jsonpatch.NewOperation("add", "/spec/mediatedDevicesConfiguration/mediatedDeviceTypes", []any{"nvidia-222"}),
			jsonpatch.NewOperation("add", "/spec/mediatedDevicesConfiguration/nodeMediatedDeviceTypes/1/mediatedDeviceTypes", []any{"nvidia-2"}),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := validHC()
			hc.Spec.KSMConfiguration = &hcov1beta1.KSMConfiguration{}
			if c.op == admissionv1.Create {
				hc.Spec.KSMConfiguration = nil
			}
			c.modify(hc)
			m := &Mutator{Decoder: admission.NewDecoder(testScheme(t))}
			resp := m.Handle(context.Background(), request(t, c.op, hc, nil))
			require.True(t, resp.Allowed)
			if c.want == nil {
				require.Empty(t, resp.Patches)
				return
			}
			require.Equal(t, "mutated", resp.Result.Message)
			require.Equal(t, roundTrip(t, c.want), roundTrip(t, resp.Patches))
		})
	}
}

// roundTrip compares patches as the API server receives them, as JSON.
func roundTrip(t *testing.T, p []jsonpatch.JsonPatchOperation) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, op := range p {
		b, err := op.MarshalJSON()
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		out = append(out, m)
	}
	return out
}

func TestMutatorLetsOtherOperationsThroughAndRefusesGarbage(t *testing.T) {
	m := &Mutator{Decoder: admission.NewDecoder(testScheme(t))}
	resp := m.Handle(context.Background(), request(t, admissionv1.Delete, nil, validHC()))
	requireOutcome(t, want{allowed: true, code: http.StatusOK, message: "ignoring other operations"}, resp)

	bad := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create}}
	bad.Object.Raw = []byte(`{"spec": 5}`)
	requireOutcome(t, want{code: http.StatusBadRequest, message: "failed to parse the HyperConverged"}, m.Handle(context.Background(), bad))
}
