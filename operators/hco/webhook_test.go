package hco

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

const testNS = "kubevirt-hyperconverged"

func request(t *testing.T, op admissionv1.Operation, obj any) admission.Request {
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Object: runtime.RawExtension{Raw: raw},
	}}
}

func validator(t *testing.T, existing ...*hcov1beta1.HyperConverged) *Validator {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	b := fake.NewClientBuilder().WithScheme(scheme)
	for _, e := range existing {
		b = b.WithObjects(e)
	}
	return &Validator{Reader: b.Build(), Namespace: testNS, Decoder: admission.NewDecoder(scheme)}
}

func hcObject(ns, name string, spec map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
		"metadata": map[string]any{"namespace": ns, "name": name, "uid": "new"}, "spec": spec,
	}
}

func TestValidatorRules(t *testing.T) {
	existing := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "kubevirt-hyperconverged", UID: "old"}}
	cases := []struct {
		name     string
		existing []*hcov1beta1.HyperConverged
		op       admissionv1.Operation
		obj      map[string]any
		denied   string
	}{
		{"valid create", nil, admissionv1.Create, hcObject(testNS, "kubevirt-hyperconverged", map[string]any{}), ""},
		{"wrong namespace", nil, admissionv1.Create, hcObject("default", "kubevirt-hyperconverged", nil),
			"invalid namespace for v1beta1.HyperConverged - please use the kubevirt-hyperconverged namespace"},
		{"wrong name", nil, admissionv1.Create, hcObject(testNS, "mine", nil),
			"Request does not match expected name (kubevirt-hyperconverged) and namespace (kubevirt-hyperconverged)"},
		{"second one", []*hcov1beta1.HyperConverged{existing}, admissionv1.Create, hcObject(testNS, "kubevirt-hyperconverged", nil),
			"only one HyperConverged is allowed"},
		{"unknown gate", nil, admissionv1.Update, hcObject(testNS, "kubevirt-hyperconverged", map[string]any{
			"featureGates": map[string]any{"downwardMetrics": true, "warpDrive": true}}), "unknown feature gate(s) warpDrive"},
		{"known gate", nil, admissionv1.Update, hcObject(testNS, "kubevirt-hyperconverged", map[string]any{
			"featureGates": map[string]any{"downwardMetrics": true}}), ""},
		{"bad bandwidth", nil, admissionv1.Update, hcObject(testNS, "kubevirt-hyperconverged", map[string]any{
			"liveMigrationConfig": map[string]any{"bandwidthPerMigration": "lots"}}), "failed to parse the LiveMigrationConfig.bandwidthPerMigration field"},
		{"zero timeout", nil, admissionv1.Update, hcObject(testNS, "kubevirt-hyperconverged", map[string]any{
			"liveMigrationConfig": map[string]any{"completionTimeoutPerGiB": 0}}), "completionTimeoutPerGiB field must be at least 1 second"},
		{"custom tls without ciphers", nil, admissionv1.Update, hcObject(testNS, "kubevirt-hyperconverged", map[string]any{
			"tlsSecurityProfile": map[string]any{"type": "Custom", "custom": map[string]any{"minTLSVersion": "VersionTLS12", "ciphers": []any{}}}}),
			"at least one cipher is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := validator(t, c.existing...).Handle(context.Background(), request(t, c.op, c.obj))
			if c.denied == "" {
				require.True(t, resp.Allowed, "unexpected denial: %v", resp.Result)
				return
			}
			require.False(t, resp.Allowed)
			require.Contains(t, resp.Result.Message, c.denied)
		})
	}
}

func TestNamespaceDeletionIsRefusedWhileHyperConvergedExists(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "kubevirt-hyperconverged"}}
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Delete, Name: testNS}}

	withHC := &NamespaceValidator{Reader: fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).Build(), Namespace: testNS}
	resp := withHC.Handle(context.Background(), req)
	require.False(t, resp.Allowed)
	require.Equal(t, "HyperConverged CR is still present, please remove it before deleting the containing namespace", resp.Result.Message)

	without := &NamespaceValidator{Reader: fake.NewClientBuilder().WithScheme(scheme).Build(), Namespace: testNS}
	require.True(t, without.Handle(context.Background(), req).Allowed)
}
