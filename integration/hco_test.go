//go:build integration

package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
	hcoc "github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operands"
)

const ns = platform.Namespace

func hcKey() types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: platform.HCName} }

// createHC creates the HyperConverged. Tests defer deleteHC right after,
// so it runs while the operators (stopped in t.Cleanup) still run.
func createHC(t *testing.T, mutate func(*hcov1beta1.HyperConverged)) *hcov1beta1.HyperConverged {
	t.Helper()
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: platform.HCName}}
	if mutate != nil {
		mutate(hc)
	}
	require.NoError(t, env.admin.Create(context.Background(), hc))
	return hc
}

func deleteHC(t *testing.T) {
	ctx := context.Background()
	hc := &hcov1beta1.HyperConverged{}
	if err := env.admin.Get(ctx, hcKey(), hc); apierrors.IsNotFound(err) {
		return
	}
	_ = env.admin.Delete(ctx, hc)
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(env.admin.Get(ctx, hcKey(), &hcov1beta1.HyperConverged{}))
	}, time.Minute, 200*time.Millisecond, "HyperConverged was not removed")
}

func waitAvailable(t *testing.T, timeout time.Duration) *hcov1beta1.HyperConverged {
	t.Helper()
	hc := &hcov1beta1.HyperConverged{}
	require.Eventually(t, func() bool {
		if err := env.admin.Get(context.Background(), hcKey(), hc); err != nil {
			return false
		}
		return meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable)
	}, timeout, 200*time.Millisecond, "HyperConverged never became Available; conditions: %+v", hc.Status.Conditions)
	return hc
}

func TestInstallCreatesComponentsWithDefaultsAndBecomesAvailable(t *testing.T) {
	services(t, platform.ServicesConfig{})
	ctx := context.Background()
	bw := "64Mi"
	created := createHC(t, func(hc *hcov1beta1.HyperConverged) {
		hc.Spec.LiveMigrationConfig.BandwidthPerMigration = &bw
		on := true
		hc.Spec.FeatureGates.DownwardMetrics = &on
	})
	defer deleteHC(t)
	hc := waitAvailable(t, 2*time.Minute)
	require.Len(t, hc.Status.RelatedObjects, 4)
	require.Equal(t, "operator", hc.Status.Versions[0].Name)

	kv := &kubevirtv1.KubeVirt{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: operands.KubeVirtName}, kv))
	require.Equal(t, created.UID, kv.OwnerReferences[0].UID, "KubeVirt is owned by the HyperConverged")
	mig := kv.Spec.Configuration.MigrationConfiguration
	require.EqualValues(t, 5, *mig.ParallelMigrationsPerCluster)
	require.EqualValues(t, 2, *mig.ParallelOutboundMigrationsPerNode)
	require.EqualValues(t, 150, *mig.CompletionTimeoutPerGiB)
	require.Equal(t, "64Mi", mig.BandwidthPerMigration.String())
	require.Contains(t, kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, "DownwardMetrics")
	require.Equal(t, "48h0m0s", kv.Spec.CertificateRotationStrategy.SelfSigned.CA.Duration.Duration.String())
	require.True(t, meta.IsStatusConditionTrue(conditionsOf(kv), "Available"))

	cdi := &cdiv1beta1.CDI{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Name: operands.CDIName}, cdi))
	require.Contains(t, cdi.Spec.Config.FeatureGates, "HonorWaitForFirstConsumer")
	require.Equal(t, operands.ManagedByValue, cdi.Labels[operands.LabelManagedBy])

	nac := &nacv1.NetworkAddonsConfig{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Name: "cluster"}, nac))
	require.NotNil(t, nac.Spec.KubeMacPool)
	require.Equal(t, "24h0m0s", nac.Spec.SelfSignConfiguration.CertRotateInterval)

	ssp := &sspv1beta3.SSP{}
	require.NoError(t, env.admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: operands.SSPName}, ssp))
	require.Equal(t, "openshift", ssp.Spec.CommonTemplates.Namespace)

	desc, err := env.tc.DescribeWorkflowExecution(ctx, hcoc.InstallWorkflowID(string(created.UID)), "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	require.Equal(t, "hco.InstallHyperConverged", desc.WorkflowExecutionInfo.Type.Name)
	recordHistory(t, env.tc, "workflows/hco/testdata/install_completed.json", hcoc.InstallWorkflowID(string(created.UID)))
}

func conditionsOf(kv *kubevirtv1.KubeVirt) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range kv.Status.Conditions {
		out = append(out, metav1.Condition{Type: string(c.Type), Status: metav1.ConditionStatus(c.Status)})
	}
	return out
}

func TestDriftedComponentFieldIsReverted(t *testing.T) {
	services(t, platform.ServicesConfig{})
	ctx := context.Background()
	createHC(t, nil)
	defer deleteHC(t)
	waitAvailable(t, 2*time.Minute)
	key := types.NamespacedName{Namespace: ns, Name: operands.KubeVirtName}
	kv := &kubevirtv1.KubeVirt{}
	require.NoError(t, env.admin.Get(ctx, key, kv))
	patch := crclient.MergeFrom(kv.DeepCopy())
	drifted := uint32(42)
	kv.Spec.Configuration.MigrationConfiguration.ParallelMigrationsPerCluster = &drifted
	require.NoError(t, env.admin.Patch(ctx, kv, patch))

	require.Eventually(t, func() bool {
		got := &kubevirtv1.KubeVirt{}
		if err := env.admin.Get(ctx, key, got); err != nil {
			return false
		}
		return *got.Spec.Configuration.MigrationConfiguration.ParallelMigrationsPerCluster == 5
	}, 30*time.Second, 100*time.Millisecond, "the drifted field was not reverted")
}

func TestDeletingHyperConvergedRemovesComponents(t *testing.T) {
	services(t, platform.ServicesConfig{})
	ctx := context.Background()
	createHC(t, nil)
	defer deleteHC(t)
	hc := waitAvailable(t, 2*time.Minute)
	deleteHC(t)
	// The HyperConverged goes only once the uninstall workflow has seen
	// every component gone, so nothing is left to wait for here.
	require.True(t, apierrors.IsNotFound(env.admin.Get(ctx, types.NamespacedName{Name: operands.CDIName}, &cdiv1beta1.CDI{})))
	require.True(t, apierrors.IsNotFound(env.admin.Get(ctx, types.NamespacedName{Name: "cluster"}, &nacv1.NetworkAddonsConfig{})))
	require.True(t, apierrors.IsNotFound(env.admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: operands.KubeVirtName}, &kubevirtv1.KubeVirt{})))
	id := hcoc.UninstallWorkflowID(string(hc.UID))
	desc, err := env.tc.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	require.Equal(t, 1, activityCount(t, id, hcoc.DeleteComponentsName))
	recordHistory(t, env.tc, "workflows/hco/testdata/uninstall_completed.json", id)
}
