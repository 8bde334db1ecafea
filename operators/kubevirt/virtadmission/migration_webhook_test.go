package virtadmission

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func migrationOf(name, vmi string, uid types.UID, phase kubevirtv1.VirtualMachineInstanceMigrationPhase) *kubevirtv1.VirtualMachineInstanceMigration {
	return &kubevirtv1.VirtualMachineInstanceMigration{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: uid, Labels: map[string]string{kubevirtv1.MigrationSelectorLabel: vmi}},
		Spec:       kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vmi},
		Status:     kubevirtv1.VirtualMachineInstanceMigrationStatus{Phase: phase},
	}
}

func createMigration(t *testing.T, mig *kubevirtv1.VirtualMachineInstanceMigration, objs ...client.Object) admission.Response {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	raw, err := json.Marshal(mig)
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	return (&MigrationCreateValidator{Reader: c}).Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create, Namespace: "ns", Object: runtime.RawExtension{Raw: raw}}})
}

func vmiIn(phase kubevirtv1.VirtualMachineInstancePhase, conds ...kubevirtv1.VirtualMachineInstanceCondition) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: phase, Conditions: conds}}
}

func TestAMigrationIsRefusedWithUpstreamsWords(t *testing.T) {
	notMigratable := kubevirtv1.VirtualMachineInstanceCondition{Type: kubevirtv1.VirtualMachineInstanceIsMigratable, Status: corev1.ConditionFalse,
		Reason: "DisksNotLiveMigratable", Message: "cannot migrate VMI: PVC d is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)"}
	noName := migrationOf("m", "", "u1", "")
	cases := map[string]struct {
		mig  *kubevirtv1.VirtualMachineInstanceMigration
		objs []client.Object
		want string
	}{
		"no VMI named":   {noName, nil, "vmiName is missing"},
		"no such VMI":    {migrationOf("m", "vm", "u1", ""), nil, `the VMI "ns/vm" does not exist`},
		"a finished VMI": {migrationOf("m", "vm", "u1", ""), []client.Object{vmiIn(kubevirtv1.Succeeded)}, "Cannot migrate VMI in finalized state."},
		"not migratable": {migrationOf("m", "vm", "u1", ""), []client.Object{vmiIn(kubevirtv1.Running, notMigratable)},
			"Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: cannot migrate VMI: PVC d is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)"},
		"another in flight": {migrationOf("m", "vm", "u1", ""), []client.Object{vmiIn(kubevirtv1.Running), migrationOf("earlier", "vm", "u0", kubevirtv1.MigrationRunning)},
			"in-flight migration detected. Active migration job (u0) is currently already in progress for VMI vm."},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp := createMigration(t, c.mig, c.objs...)
			require.False(t, resp.Allowed)
			require.Equal(t, c.want, resp.Result.Message)
		})
	}
	ok := createMigration(t, migrationOf("m", "vm", "u1", ""), vmiIn(kubevirtv1.Pending), migrationOf("done", "vm", "u0", kubevirtv1.MigrationSucceeded))
	require.True(t, ok.Allowed, "a pending VMI is admitted and a finished migration is no obstacle: %s", ok.Result)
}

func TestAMigrationsSpecAndInFlightLabelStay(t *testing.T) {
	update := func(old, mig *kubevirtv1.VirtualMachineInstanceMigration) admission.Response {
		oldRaw, err := json.Marshal(old)
		require.NoError(t, err)
		raw, err := json.Marshal(mig)
		require.NoError(t, err)
		return MigrationUpdateValidator{}.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: admissionv1.Update, Object: runtime.RawExtension{Raw: raw}, OldObject: runtime.RawExtension{Raw: oldRaw}}})
	}
	old := migrationOf("m", "vm", "u1", kubevirtv1.MigrationRunning)
	changed := old.DeepCopy()
	changed.Spec.AddedNodeSelector = map[string]string{"zone": "b"}
	require.Equal(t, "update of Migration object's spec is restricted", update(old, changed).Result.Message)
	unlabelled := old.DeepCopy()
	delete(unlabelled.Labels, kubevirtv1.MigrationSelectorLabel)
	require.Equal(t, "selector label can't be removed from an in-flight migration", update(old, unlabelled).Result.Message)
	relabelled := old.DeepCopy()
	relabelled.Labels[kubevirtv1.MigrationSelectorLabel] = "other"
	require.Equal(t, "selector label can't be modified on an in-flight migration", update(old, relabelled).Result.Message)
	finished := migrationOf("m", "vm", "u1", kubevirtv1.MigrationSucceeded)
	unlabelledDone := finished.DeepCopy()
	delete(unlabelledDone.Labels, kubevirtv1.MigrationSelectorLabel)
	require.True(t, update(finished, unlabelledDone).Allowed, "a finished migration's label is free")
}
