package virtadmission

import (
	"context"
	"encoding/json"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// mutateMigration runs the mutator on mig and returns the migration its
// patch makes.
func mutateMigration(t *testing.T, mig *kubevirtv1.VirtualMachineInstanceMigration) *kubevirtv1.VirtualMachineInstanceMigration {
	t.Helper()
	raw, err := json.Marshal(mig)
	require.NoError(t, err)
	resp := MigrationMutator{}.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}}})
	require.True(t, resp.Allowed)
	ops, err := json.Marshal(resp.Patches)
	require.NoError(t, err)
	patch, err := jsonpatch.DecodePatch(ops)
	require.NoError(t, err)
	out, err := patch.Apply(raw)
	require.NoError(t, err)
	got := &kubevirtv1.VirtualMachineInstanceMigration{}
	require.NoError(t, json.Unmarshal(out, got))
	return got
}

func TestANewMigrationIsLabelledWithItsVMIAndHeldByTheFinalizer(t *testing.T) {
	mig := migrationOf("m", "vm", "u1", "")
	mig.Labels = nil
	got := mutateMigration(t, mig)
	require.Equal(t, map[string]string{"kubevirt.io/vmi-name": "vm"}, got.Labels)
	require.Equal(t, []string{"kubevirt.io/migrationJobFinalize"}, got.Finalizers)
	require.Equal(t, mig.Spec, got.Spec)
}

func TestTheMutatorKeepsOtherMetadataAndOverridesAFalseVMILabel(t *testing.T) {
	mig := migrationOf("m", "vm", "u1", "")
	mig.Labels = map[string]string{"kubevirt.io/vmi-name": "other", "team": "a"}
	mig.Finalizers = []string{"example.com/keep", "kubevirt.io/migrationJobFinalize"}
	got := mutateMigration(t, mig)
	require.Equal(t, map[string]string{"kubevirt.io/vmi-name": "vm", "team": "a"}, got.Labels)
	require.Equal(t, []string{"example.com/keep", "kubevirt.io/migrationJobFinalize"}, got.Finalizers)
}

func TestMigrationWebhooksAreRegisteredAsUpstream(t *testing.T) {
	cc := func(path string) (cfg admissionregistrationv1.WebhookClientConfig) { cfg.URL = &path; return }
	want := map[string]struct {
		path string
		op   admissionregistrationv1.OperationType
	}{
		"migration-create-validator.kubevirt.io": {"/migration-validate-create", admissionregistrationv1.Create},
		"migration-update-validator.kubevirt.io": {"/migration-validate-update", admissionregistrationv1.Update},
		"migrations-mutator.kubevirt.io":         {"/migration-mutate-create", admissionregistrationv1.Create},
	}
	got := map[string][]admissionregistrationv1.RuleWithOperations{}
	paths := map[string]string{}
	for _, h := range ValidatingWebhooks(cc) {
		got[h.Name], paths[h.Name] = h.Rules, *h.ClientConfig.URL
	}
	for _, h := range MutatingWebhooks(cc) {
		got[h.Name], paths[h.Name] = h.Rules, *h.ClientConfig.URL
	}
	handlers := Webhooks(nil, nil)
	for name, w := range want {
		require.Equal(t, w.path, paths[name], name)
		require.Len(t, got[name], 1, name)
		require.Equal(t, []string{"kubevirt.io"}, got[name][0].APIGroups, name)
		require.Equal(t, []string{"virtualmachineinstancemigrations"}, got[name][0].Resources, name)
		require.Equal(t, []admissionregistrationv1.OperationType{w.op}, got[name][0].Operations, name)
		require.Contains(t, handlers, w.path, name)
	}
}
