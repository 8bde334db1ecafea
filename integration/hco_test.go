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
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

func waitAvailable(t *testing.T, c crclient.Client, timeout time.Duration) *hcov1beta1.HyperConverged {
	t.Helper()
	hc := &hcov1beta1.HyperConverged{}
	require.Eventually(t, func() bool {
		if err := c.Get(context.Background(), hcKey(), hc); err != nil {
			return false
		}
		return meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable)
	}, timeout, 200*time.Millisecond, "HyperConverged never became Available; conditions: %+v", hc.Status.Conditions)
	return hc
}

func conditionsOf(kv *kubevirtv1.KubeVirt) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range kv.Status.Conditions {
		out = append(out, metav1.Condition{Type: string(c.Type), Status: metav1.ConditionStatus(c.Status)})
	}
	return out
}

func kubeVirtCR(t *testing.T, c crclient.Client) *kubevirtv1.KubeVirt {
	kv := &kubevirtv1.KubeVirt{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: operands.KubeVirtName}, kv))
	return kv
}

// The default HyperConverged `virtflow up` created was installed by
// hco.InstallHyperConverged and gave each component CR its defaults; a
// change of its spec reaches the KubeVirt CR.
func TestHyperConvergedSettingsReachItsComponents(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	hc := waitAvailable(t, n.c, time.Minute)
	require.Len(t, hc.Status.RelatedObjects, 4)
	require.Equal(t, "operator", hc.Status.Versions[0].Name)

	kv := kubeVirtCR(t, n.c)
	require.Equal(t, hc.UID, kv.OwnerReferences[0].UID, "KubeVirt is owned by the HyperConverged")
	mig := kv.Spec.Configuration.MigrationConfiguration
	require.EqualValues(t, 5, *mig.ParallelMigrationsPerCluster)
	require.EqualValues(t, 2, *mig.ParallelOutboundMigrationsPerNode)
	require.EqualValues(t, 150, *mig.CompletionTimeoutPerGiB)
	require.Equal(t, "48h0m0s", kv.Spec.CertificateRotationStrategy.SelfSigned.CA.Duration.Duration.String())
	require.True(t, meta.IsStatusConditionTrue(conditionsOf(kv), "Available"))
	cdi := &cdiv1beta1.CDI{}
	require.NoError(t, n.c.Get(ctx, types.NamespacedName{Name: operands.CDIName}, cdi))
	require.Contains(t, cdi.Spec.Config.FeatureGates, "HonorWaitForFirstConsumer")
	require.Equal(t, operands.ManagedByValue, cdi.Labels[operands.LabelManagedBy])
	nac := &nacv1.NetworkAddonsConfig{}
	require.NoError(t, n.c.Get(ctx, types.NamespacedName{Name: "cluster"}, nac))
	require.NotNil(t, nac.Spec.KubeMacPool)
	require.Equal(t, "24h0m0s", nac.Spec.SelfSignConfiguration.CertRotateInterval)
	ssp := &sspv1beta3.SSP{}
	require.NoError(t, n.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: operands.SSPName}, ssp))
	require.Equal(t, "openshift", ssp.Spec.CommonTemplates.Namespace)
	id := hcoc.InstallWorkflowID(string(hc.UID))
	desc, err := n.tc.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	require.Equal(t, "hco.InstallHyperConverged", desc.WorkflowExecutionInfo.Type.Name)
	recordHistory(t, n.tc, "workflows/hco/testdata/install_completed.json", id)

	setHC(t, n.c, `{"spec":{"liveMigrationConfig":{"bandwidthPerMigration":"64Mi"},"featureGates":{"downwardMetrics":true}}}`)
	defer setHC(t, n.c, `{"spec":{"liveMigrationConfig":{"bandwidthPerMigration":null},"featureGates":{"downwardMetrics":false}}}`)
	require.Eventually(t, func() bool {
		kv := kubeVirtCR(t, n.c)
		bw := kv.Spec.Configuration.MigrationConfiguration.BandwidthPerMigration
		return bw != nil && bw.String() == "64Mi" && contains(kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, "DownwardMetrics")
	}, time.Minute, 200*time.Millisecond, "the HyperConverged's settings did not reach the KubeVirt CR")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// setHC merge-patches the HyperConverged.
func setHC(t *testing.T, c crclient.Client, patch string) {
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: platform.HCName}}
	require.NoError(t, c.Patch(context.Background(), hc, crclient.RawPatch(types.MergePatchType, []byte(patch))))
}

func TestDriftedComponentFieldIsReverted(t *testing.T) {
	n := onNode(t)
	waitAvailable(t, n.c, time.Minute)
	kv := kubeVirtCR(t, n.c)
	patch := crclient.MergeFrom(kv.DeepCopy())
	drifted := uint32(42)
	kv.Spec.Configuration.MigrationConfiguration.ParallelMigrationsPerCluster = &drifted
	require.NoError(t, n.c.Patch(context.Background(), kv, patch))
	require.Eventually(t, func() bool {
		return *kubeVirtCR(t, n.c).Spec.Configuration.MigrationConfiguration.ParallelMigrationsPerCluster == 5
	}, 30*time.Second, 100*time.Millisecond, "the drifted field was not reverted")
}

func TestInvalidHyperConvergedIsRejectedWithItsReason(t *testing.T) {
	n := onNode(t)
	waitAvailable(t, n.c, time.Minute)
	ctx := context.Background()
	// The install namespace is enforced by the API server, with the
	// admission policy hco-operator keeps.
	elsewhere := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: platform.HCName}}
	var err error
	require.Eventually(t, func() bool {
		err = n.c.Create(ctx, elsewhere.DeepCopy(), crclient.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'hyperconverged-namespace-policy'")
	}, 30*time.Second, 250*time.Millisecond, "the namespace policy did not refuse")
	require.Contains(t, err.Error(), "HyperConverged CR can only be created in the 'kubevirt-hyperconverged' namespace.")
	// A second one of the same name is the API server's to refuse.
	err = n.c.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
		"metadata": map[string]any{"namespace": ns, "name": platform.HCName},
	}}, crclient.DryRunAll)
	require.True(t, apierrors.IsAlreadyExists(err), "%v", err)
	// The spec is validated on create...
	shortCA := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second"}}
	shortCA.Spec.CertConfig.CA.Duration = &metav1.Duration{Duration: time.Minute}
	err = n.c.Create(ctx, shortCA, crclient.DryRunAll)
	require.ErrorContains(t, err, `admission webhook "validate-hco-v1beta1.kubevirt.io" denied the request: spec.certConfig.ca.duration: value is too small`)
	// ...and on update.
	update := func(patch, want string, opts ...crclient.PatchOption) {
		t.Helper()
		hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: platform.HCName}}
		err := n.c.Patch(ctx, hc, crclient.RawPatch(types.MergePatchType, []byte(patch)), append(opts, crclient.DryRunAll)...)
		require.Error(t, err, "expected %s to be rejected", patch)
		require.Contains(t, err.Error(), want)
	}
	update(`{"spec":{"tlsSecurityProfile":{"type":"Custom","custom":{"minTLSVersion":"VersionTLS13","ciphers":["ECDHE-RSA-AES128-GCM-SHA256"]}}}}`,
		"custom ciphers cannot be selected when minTLSVersion is VersionTLS13")
	// An unknown gate is pruned, or refused by strict field validation.
	update(`{"spec":{"featureGates":{"fooBarGate":true}}}`, `unknown field "spec.featureGates.fooBarGate"`, crclient.FieldValidation("Strict"))

	// A dry run: were the guard missing, this would delete the platform.
	err = n.c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, crclient.DryRunAll)
	require.Error(t, err)
	require.Contains(t, err.Error(), `admission webhook "mutate-ns-hco.kubevirt.io" denied the request: HyperConverged CR is still present, please remove it before deleting the containing hcoNamespace`)
	require.False(t, strings.Contains(err.Error(), "internal error"))
}

// Another HyperConverged is admitted, as by HCO, and left alone: its
// status says why, and deleting it removes nothing.
func TestAnotherHyperConvergedIsAnInvalidRequest(t *testing.T) {
	n := onNode(t)
	waitAvailable(t, n.c, time.Minute)
	ctx := context.Background()
	second := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second"}}
	require.NoError(t, n.c.Create(ctx, second))
	defer func() { _ = n.c.Delete(ctx, second) }()
	require.Eventually(t, func() bool {
		hc := &hcov1beta1.HyperConverged{}
		if err := n.c.Get(ctx, crclient.ObjectKeyFromObject(second), hc); err != nil {
			return false
		}
		cond := meta.FindStatusCondition(hc.Status.Conditions, hcov1beta1.ConditionReconcileComplete)
		return cond != nil && cond.Reason == "InvalidRequest" &&
			cond.Message == "Request does not match expected name (kubevirt-hyperconverged) and namespace (kubevirt-hyperconverged)"
	}, 30*time.Second, 250*time.Millisecond, "the second HyperConverged was not reported as an invalid request")
	require.NoError(t, n.c.Delete(ctx, second))
	require.Eventually(t, func() bool { return apierrors.IsNotFound(n.c.Get(ctx, crclient.ObjectKeyFromObject(second), second)) },
		30*time.Second, 250*time.Millisecond, "the second HyperConverged was not removed")
	waitAvailable(t, n.c, time.Minute)
}

func installProgress(t *testing.T, tc client.Client, id string) hcoc.InstallProgress {
	var p hcoc.InstallProgress
	desc, err := tc.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		return p
	}
	if payload := desc.WorkflowExecutionInfo.GetMemo().GetFields()[hcoc.ProgressMemoKey]; payload != nil {
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &p))
	}
	return p
}

// Deleting the HyperConverged uninstalls every component, pods included;
// a new one installs them again, and killing the control worker while the
// install waits for them loses nothing: the restarted worker finishes the
// same run without planning or creating anything twice.
func TestDeletingTheHyperConvergedAndAKilledWorkerMidReinstall(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	old := waitAvailable(t, n.c, time.Minute)
	before := componentPods(t, n.c)
	// The uninstall guards refuse while VMs or DataVolumes exist: earlier
	// tests' namespaces may still be going.
	require.Eventually(t, func() bool { return n.c.Delete(ctx, old.DeepCopy(), crclient.DryRunAll) == nil },
		2*time.Minute, time.Second, "deleting the HyperConverged was still refused")
	require.NoError(t, n.c.Delete(ctx, old))
	require.Eventually(t, func() bool { return apierrors.IsNotFound(n.c.Get(ctx, hcKey(), &hcov1beta1.HyperConverged{})) },
		3*time.Minute, 250*time.Millisecond, "the HyperConverged was not removed")
	require.True(t, apierrors.IsNotFound(n.c.Get(ctx, types.NamespacedName{Name: operands.CDIName}, &cdiv1beta1.CDI{})))
	require.True(t, apierrors.IsNotFound(n.c.Get(ctx, types.NamespacedName{Name: "cluster"}, &nacv1.NetworkAddonsConfig{})))
	require.True(t, apierrors.IsNotFound(n.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: operands.KubeVirtName}, &kubevirtv1.KubeVirt{})))
	uninstall := hcoc.UninstallWorkflowID(string(old.UID))
	desc, err := n.tc.DescribeWorkflowExecution(ctx, uninstall, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	require.Equal(t, 1, activityCount(t, n.tc, uninstall, hcoc.DeleteComponentsName))
	recordHistory(t, n.tc, "workflows/hco/testdata/uninstall_completed.json", uninstall)
	require.Eventually(t, func() bool {
		for _, uid := range before {
			if podExists(n.c, uid) {
				return false
			}
		}
		return true
	}, 2*time.Minute, 250*time.Millisecond, "virt-api, virt-controller and virt-handler outlived the KubeVirt CR")

	require.NoError(t, platform.EnsureHyperConverged(ctx, n.cfg))
	hc := &hcov1beta1.HyperConverged{}
	require.NoError(t, n.c.Get(ctx, hcKey(), hc))
	install := hcoc.InstallWorkflowID(string(hc.UID))
	require.Eventually(t, func() bool { return installProgress(t, n.tc, install).Step == hcoc.StepWaiting },
		time.Minute, 50*time.Millisecond, "the install never reached the waiting step")
	worker := labelledPods(t, n.c, "app.kubernetes.io/name", "virtflow-worker")["virtflow-worker"]
	require.NoError(t, syscall.Kill(podProcess(t, worker, []string{"/usr/bin/virtflow", "control-worker"}), syscall.SIGKILL))

	n.hcUID = string(waitAvailable(t, n.c, 4*time.Minute).UID)
	desc, err = n.tc.DescribeWorkflowExecution(ctx, install, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	require.Equal(t, 1, activityCount(t, n.tc, install, hcoc.PlanComponentsName), "the install was not restarted from scratch")
	require.Equal(t, 4, activityCount(t, n.tc, install, hcoc.EnsureComponentName), "no component was created twice")
	restarted := &corev1.Pod{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKeyFromObject(&worker), restarted))
	require.Positive(t, restarted.Status.ContainerStatuses[0].RestartCount, "the kubelet restarted the worker")
	// The tests after this one find every component serving again.
	componentPods(t, n.c)
	labelledPods(t, n.c, "cdi.kubevirt.io", "cdi-apiserver", "cdi-deployment", "cdi-uploadproxy")
	virtAPIServes(t, n.c, n.dataDir)
}
