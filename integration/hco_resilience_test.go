//go:build integration

package integration

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hcoc "github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/embedded/platform"
)

func installProgress(t *testing.T, id string) hcoc.InstallProgress {
	var p hcoc.InstallProgress
	desc, err := env.tc.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		return p
	}
	if payload := desc.WorkflowExecutionInfo.GetMemo().GetFields()[hcoc.ProgressMemoKey]; payload != nil {
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &p))
	}
	return p
}

// The component operators are held back so the install is certainly
// waiting when the worker dies; a second worker must finish the same run
// without planning or creating anything again.
func TestKilledWorkerMidInstallIsResumedByANewWorker(t *testing.T) {
	services(t, platform.ServicesConfig{SkipWorker: true, SkipComponentOperators: true})
	first := workerProcess(t)
	hc := createHC(t, nil)
	defer deleteHC(t)
	id := hcoc.InstallWorkflowID(string(hc.UID))

	require.Eventually(t, func() bool {
		p := installProgress(t, id)
		return p.Step == hcoc.StepWaiting
	}, time.Minute, 100*time.Millisecond, "install never reached the waiting step")
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_, _ = first.Process.Wait()

	services(t, platform.ServicesConfig{SkipHCO: true, SkipWorker: true})
	workerProcess(t)
	waitAvailable(t, 3*time.Minute)

	desc, err := env.tc.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	require.Equal(t, 1, activityCount(t, id, hcoc.PlanComponentsName), "the install was not restarted from scratch")
	require.Equal(t, 4, activityCount(t, id, hcoc.EnsureComponentName), "no component was created twice")
}

func TestInvalidHyperConvergedIsRejectedWithItsReason(t *testing.T) {
	services(t, platform.ServicesConfig{})
	ctx := context.Background()
	reject := func(hc *hcov1beta1.HyperConverged, want string) {
		t.Helper()
		err := env.admin.Create(ctx, hc)
		require.Error(t, err, "expected %s/%s to be rejected", hc.Namespace, hc.Name)
		require.Contains(t, err.Error(), want)
	}
	reject(&hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: platform.HCName}},
		"invalid namespace for v1beta1.HyperConverged - please use the kubevirt-hyperconverged namespace")
	reject(&hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second"}},
		"Request does not match expected name (kubevirt-hyperconverged) and namespace (kubevirt-hyperconverged)")
	negative := "-10Mi"
	reject(&hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: platform.HCName},
		Spec: hcov1beta1.HyperConvergedSpec{LiveMigrationConfig: hcov1beta1.LiveMigrationConfigurations{BandwidthPerMigration: &negative}}},
		"bandwidthPerMigration field must not be negative")

	unknownGate := map[string]any{
		"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
		"metadata": map[string]any{"namespace": ns, "name": platform.HCName},
		"spec":     map[string]any{"featureGates": map[string]any{"fooBarGate": true}},
	}
	err := env.admin.Create(ctx, &unstructured.Unstructured{Object: unknownGate})
	require.Error(t, err, "a misspelled gate must not be silently pruned")
	require.Contains(t, err.Error(), "unknown feature gate(s) fooBarGate")

	createHC(t, nil)
	defer deleteHC(t)
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	err = env.admin.Delete(ctx, nsObj)
	require.Error(t, err)
	require.Contains(t, err.Error(), "HyperConverged CR is still present, please remove it before deleting the containing namespace")
	require.False(t, strings.Contains(err.Error(), "internal error"))
}
