package virt

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/virt"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

var planInput = virt.MigrateInput{Migration: virt.Ref{Namespace: "ns", Name: "mig", UID: "m-1"}, VMI: virt.Ref{Namespace: "ns", Name: "vm", UID: "v-1"}}

func runningVMI() *kubevirtv1.VirtualMachineInstance {
	mem := resource.MustParse("2Gi")
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "v-1", Labels: map[string]string{"tier": "db"}},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running, NodeName: "node-1", MigrationMethod: kubevirtv1.BlockMigration,
			Conditions: []kubevirtv1.VirtualMachineInstanceCondition{{Type: kubevirtv1.VirtualMachineInstanceIsMigratable, Status: corev1.ConditionTrue}}}}
	vmi.Spec.Domain.Memory = &kubevirtv1.Memory{Guest: &mem}
	return vmi
}

func planWorld(t *testing.T, vmi *kubevirtv1.VirtualMachineInstance, more ...client.Object) (*Activities, client.Client) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	bw, perGB, yes := resource.MustParse("64Mi"), int64(100), true
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm-aaaaa", Labels: map[string]string{kubevirtv1.CreatedByLabel: "v-1"}},
		Spec: corev1.PodSpec{NodeName: "node-1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt-hyperconverged", Name: "kv"},
		Spec: kubevirtv1.KubeVirtSpec{Configuration: kubevirtv1.KubeVirtConfiguration{MigrationConfiguration: &kubevirtv1.MigrationConfiguration{
			BandwidthPerMigration: &bw, CompletionTimeoutPerGiB: &perGB}}}}
	policy := &migrationsv1alpha1.MigrationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "dbs"}, Spec: migrationsv1alpha1.MigrationPolicySpec{
		Selectors: &migrationsv1alpha1.Selectors{VirtualMachineInstanceSelector: map[string]string{"tier": "db"}}, AllowAutoConverge: &yes}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(append([]client.Object{vmi, pod, kv, policy, ns}, more...)...).
		WithStatusSubresource(vmi).Build()
	return &Activities{Client: c}, c
}

func TestAPlanRecordsTheMigrationAndTheConfigurationInEffect(t *testing.T) {
	a, c := planWorld(t, runningVMI())
	plan, err := a.PlanMigration(context.Background(), planInput)
	require.NoError(t, err)
	require.Equal(t, virt.MigrationPlan{Source: virt.Side{Node: "node-1", Pod: "virt-launcher-vm-aaaaa"}, PolicyName: "dbs", BandwidthMiB: 64,
		AutoConverge: true, CompletionTimeout: 300 * time.Second, ProgressTimeout: 150 * time.Second, BlockMigration: true}, plan,
		"2Gi is 2.15 decimal GB: three times the cluster's 100 s")

	got := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "vm"}, got))
	st := got.Status.MigrationState
	require.NotNil(t, st)
	require.Equal(t, "m-1", string(st.MigrationUID))
	require.Equal(t, "node-1", st.SourceNode)
	require.Equal(t, "virt-launcher-vm-aaaaa", st.SourcePod)
	require.Equal(t, "dbs", *st.MigrationPolicyName)
	require.True(t, *st.VMIMConfigurationOptions.AllowAutoConverge)
	start := st.StartTimestamp

	_, err = a.PlanMigration(context.Background(), planInput)
	require.NoError(t, err)
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "vm"}, got))
	require.Equal(t, start, got.Status.MigrationState.StartTimestamp, "a retried step keeps the first start")
}

func TestAPlanRefusesAVMIThatCannotMoveAndWaitsForOneThatDoesNotRunYet(t *testing.T) {
	refusal := func(vmi *kubevirtv1.VirtualMachineInstance) string {
		a, _ := planWorld(t, vmi)
		_, err := a.PlanMigration(context.Background(), planInput)
		var app *temporal.ApplicationError
		require.True(t, errors.As(err, &app), "%v", err)
		require.True(t, app.NonRetryable())
		require.Equal(t, virt.ErrTypeMigrationRefused, app.Type())
		return app.Message()
	}
	done := runningVMI()
	done.Status.Phase = kubevirtv1.Succeeded
	require.Equal(t, "Cannot migrate VMI in finalized state.", refusal(done))
	local := runningVMI()
	local.Status.Conditions[0] = kubevirtv1.VirtualMachineInstanceCondition{Type: kubevirtv1.VirtualMachineInstanceIsMigratable, Status: corev1.ConditionFalse,
		Reason: "DisksNotLiveMigratable", Message: "cannot migrate VMI with non-shared HostDisk"}
	require.Equal(t, "Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: cannot migrate VMI with non-shared HostDisk", refusal(local))
	busy := runningVMI()
	busy.Status.MigrationState = &kubevirtv1.VirtualMachineInstanceMigrationState{MigrationUID: "m-0"}
	require.Equal(t, "in-flight migration detected. Active migration job (m-0) is currently already in progress for VMI vm.", refusal(busy))
	replaced := runningVMI()
	replaced.UID = "v-2"
	require.Equal(t, `the VMI "ns/vm" does not exist`, refusal(replaced))

	pending := runningVMI()
	pending.Status.Phase = kubevirtv1.Scheduling
	a, _ := planWorld(t, pending)
	_, err := a.PlanMigration(context.Background(), planInput)
	require.ErrorContains(t, err, "waiting for VMI ns/vm to run")
	var app *temporal.ApplicationError
	require.False(t, errors.As(err, &app), "retried until it runs")
}

// A VMI that came by migration runs in that migration's target pod, which
// the next migration moves from.
func TestAPlanMovesAVMIFromThePodAnEarlierMigrationBroughtItTo(t *testing.T) {
	vmi := runningVMI()
	vmi.Status.NodeName = "node-2"
	earlier := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm-ccccc",
		Labels: map[string]string{kubevirtv1.CreatedByLabel: "v-1", kubevirtv1.MigrationJobLabel: "m-0"}},
		Spec: corev1.PodSpec{NodeName: "node-2"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	a, _ := planWorld(t, vmi, earlier)
	plan, err := a.PlanMigration(context.Background(), planInput)
	require.NoError(t, err)
	require.Equal(t, virt.Side{Node: "node-2", Pod: "virt-launcher-vm-ccccc"}, plan.Source)
}
