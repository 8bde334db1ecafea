package volumepopulator

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// bindPrime plays the provisioner and the volume controller: a node-local
// volume on node-1 bound to the prime.
func bindPrime(t *testing.T, r *Reconciler) {
	t.Helper()
	ctx := context.Background()
	prime := get(t, r, primeKey, &corev1.PersistentVolumeClaim{})
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{
		ClaimRef: &corev1.ObjectReference{Namespace: ns, Name: prime.Name, UID: prime.UID},
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
			Driver: "kubevirt.io.hostpath-provisioner", VolumeHandle: "pv-1", VolumeAttributes: map[string]string{"path": "/var/hpvolumes/pv-1"}}},
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}}}}}}},
	}}
	require.NoError(t, r.Client.Create(ctx, pv))
	prime.Spec.VolumeName = "pv-1"
	require.NoError(t, r.Client.Update(ctx, prime))
	prime.Status.Phase = corev1.ClaimBound
	require.NoError(t, r.Client.Status().Update(ctx, prime))
}

// A claim naming a VolumeImportSource gets a prime claim of its shape,
// which is bound (by a binder pod when no node was chosen), filled by the
// import workflow on its node and handed over; the prime goes once the
// claim is bound.
func TestImportPopulatorFillsAPrimeAndHandsItsVolumeOver(t *testing.T) {
	r, tc := newReconciler(t, fixtures()...)
	ctx := context.Background()
	reconcileTarget(t, r)
	prime := get(t, r, primeKey, &corev1.PersistentVolumeClaim{})
	require.Equal(t, "VolumeImportSource", prime.Annotations[AnnPopulatorKind])
	require.Equal(t, "http://images/disk.img", prime.Annotations[AnnEndpoint])
	require.Equal(t, "http", prime.Annotations[AnnSource])
	require.Equal(t, "kubevirt", prime.Annotations[AnnContentType])
	require.Contains(t, prime.Annotations, AnnImmediateBinding)
	require.Equal(t, "target", metav1.GetControllerOf(prime).Name)
	require.Equal(t, "hostpath-csi", *prime.Spec.StorageClassName)
	require.Nil(t, prime.Spec.DataSourceRef, "the provisioner must fill the prime itself")

	reconcileTarget(t, r)
	get(t, r, "cdi-binder-"+primeKey, &corev1.Pod{})
	require.Equal(t, "Pending", get(t, r, "target", &corev1.PersistentVolumeClaim{}).Annotations[AnnPodPhase])

	bindPrime(t, r)
	reconcileTarget(t, r)
	require.Len(t, tc.started, 1)
	in := tc.started[0]
	require.Equal(t, "node-1", in.Node)
	require.Equal(t, "/var/hpvolumes/pv-1", in.Request.VolumeDir)
	require.Equal(t, primeKey, in.Request.Claim)
	require.Equal(t, "http://images/disk.img", in.Request.Source.URL)
	require.Equal(t, "target-uid", in.Request.Key)
	require.Positive(t, in.Request.Size)
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "cdi-binder-" + primeKey}, &corev1.Pod{})
	require.True(t, apierrors.IsNotFound(err), "the binder goes once the prime is bound")

	tc.memo[wfID] = cdi.ImportProgress{Step: cdi.StepImporting, Activity: &cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 1, Percent: 42}}
	reconcileTarget(t, r)
	target := get(t, r, "target", &corev1.PersistentVolumeClaim{})
	require.Equal(t, "Running", target.Annotations[AnnPodPhase])
	require.Equal(t, "42.00%", target.Annotations[AnnPopulatorProgress])
	require.Equal(t, "true", target.Annotations[AnnRunning])
	require.Equal(t, primeKey, target.Annotations[AnnPVCPrimeName])

	tc.status[wfID], tc.memo[wfID] = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, cdi.ImportProgress{Step: cdi.StepCompleted}
	reconcileTarget(t, r)
	require.Equal(t, "Succeeded", get(t, r, primeKey, &corev1.PersistentVolumeClaim{}).Annotations[AnnPodPhase])
	target = get(t, r, "target", &corev1.PersistentVolumeClaim{})
	require.Equal(t, "100.0%", target.Annotations[AnnPopulatorProgress])
	require.Equal(t, "Completed", target.Annotations[AnnRunningReason])
	pv := &corev1.PersistentVolume{}
	require.NoError(t, r.Client.Get(ctx, types.NamespacedName{Name: "pv-1"}, pv))
	require.Equal(t, "target", pv.Spec.ClaimRef.Name)
	require.Equal(t, types.UID("target-uid"), pv.Spec.ClaimRef.UID)

	target.Spec.VolumeName = "pv-1"
	require.NoError(t, r.Client.Update(ctx, target))
	target.Status.Phase = corev1.ClaimBound
	require.NoError(t, r.Client.Status().Update(ctx, target))
	prime = get(t, r, primeKey, &corev1.PersistentVolumeClaim{})
	prime.Status.Phase = corev1.ClaimLost
	require.NoError(t, r.Client.Status().Update(ctx, prime))
	reconcileTarget(t, r)
	err = r.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: primeKey}, &corev1.PersistentVolumeClaim{})
	require.True(t, apierrors.IsNotFound(err), "the prime goes once the claim holds its volume")
	reconcileTarget(t, r)
	require.Len(t, tc.started, 1, "a populated claim starts nothing again")
}

// A WaitForFirstConsumer claim waits for its consumer's node, which the
// prime then takes; a claim for another populator is left alone.
func TestImportPopulatorWaitsForTheConsumersNode(t *testing.T) {
	objs := fixtures()
	pvc := objs[2].(*corev1.PersistentVolumeClaim)
	delete(pvc.Annotations, AnnImmediateBinding)
	r, _ := newReconciler(t, objs...)
	ctx := context.Background()
	reconcileTarget(t, r)
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: primeKey}, &corev1.PersistentVolumeClaim{})
	require.True(t, apierrors.IsNotFound(err))

	pvc = get(t, r, "target", &corev1.PersistentVolumeClaim{})
	pvc.Annotations = map[string]string{AnnSelectedNode: "node-2"}
	require.NoError(t, r.Client.Update(ctx, pvc))
	reconcileTarget(t, r)
	require.Equal(t, "node-2", get(t, r, primeKey, &corev1.PersistentVolumeClaim{}).Annotations[AnnSelectedNode])
	reconcileTarget(t, r)
	err = r.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "cdi-binder-" + primeKey}, &corev1.Pod{})
	require.True(t, apierrors.IsNotFound(err), "a prime with a node needs no binder")
}

// A source meant for another claim, or a claim naming another kind, is
// not populated.
func TestImportPopulatorIgnoresClaimsItDoesNotFill(t *testing.T) {
	objs := fixtures()
	objs[1].(*cdiv1.VolumeImportSource).Spec.TargetClaim = ptr.To("someone-else")
	other := objs[2].(*corev1.PersistentVolumeClaim).DeepCopy()
	other.Name, other.UID = "other", "other-uid"
	other.Spec.DataSourceRef.Kind = "VolumeUploadSource"
	r, _ := newReconciler(t, append(objs, other)...)
	ctx := context.Background()
	reconcileTarget(t, r)
	_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "other"}})
	require.NoError(t, err)
	for _, name := range []string{primeKey, "prime-other-uid"} {
		err = r.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &corev1.PersistentVolumeClaim{})
		require.True(t, apierrors.IsNotFound(err), name)
	}
}
