package datasource

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func TestReadyNeedsABoundClaimAndASucceededDataVolume(t *testing.T) {
	key := types.NamespacedName{Namespace: "golden", Name: "fedora-1"}
	bound := &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	pending := &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	dv := func(p cdiv1.DataVolumePhase) *cdiv1.DataVolume {
		return &cdiv1.DataVolume{Status: cdiv1.DataVolumeStatus{Phase: p}}
	}
	cases := []struct {
		pvc            *corev1.PersistentVolumeClaim
		dv             *cdiv1.DataVolume
		status, reason string
	}{
		{nil, nil, "False", ReasonNotFound},
		{pending, nil, "False", ReasonPending},
		{bound, nil, "True", ReasonReady},
		{bound, dv(cdiv1.ImportInProgress), "False", "ImportInProgress"},
		{nil, dv(""), "False", "Pending"},
		{bound, dv(cdiv1.Failed), "False", "Failed"},
		{bound, dv(cdiv1.Succeeded), "True", ReasonReady},
	}
	for i, c := range cases {
		got := Ready(key, c.pvc, c.dv)
		require.Equal(t, cdiv1.DataSourceReady, got.Type, i)
		require.Equal(t, corev1.ConditionStatus(c.status), got.Status, i)
		require.Equal(t, c.reason, got.Reason, i)
	}
}

func TestReconcileWritesSourceAndReadyOnce(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	pvcRef := &cdiv1.DataVolumeSourcePVC{Namespace: "golden", Name: "fedora-1"}
	ds := &cdiv1.DataSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: "vms", Name: "fedora"},
		Spec:       cdiv1.DataSourceSpec{Source: cdiv1.DataSourceSource{PVC: pvcRef}},
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "fedora-1"},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ds, pvc).
		WithIndex(&cdiv1.DataSource{}, pvcSourceIndex, pvcSourceKey).Build()
	r := &Reconciler{Client: c}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ds)}
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	got := &cdiv1.DataSource{}
	require.NoError(t, c.Get(context.Background(), req.NamespacedName, got))
	require.Equal(t, pvcRef, got.Status.Source.PVC)
	require.Len(t, got.Status.Conditions, 1)
	require.Equal(t, corev1.ConditionTrue, got.Status.Conditions[0].Status)
	rv := got.ResourceVersion

	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.NoError(t, c.Get(context.Background(), req.NamespacedName, got))
	require.Equal(t, rv, got.ResourceVersion, "an unchanged status is not written again")
	require.Equal(t, []ctrl.Request{req}, r.dataSourcesNaming(context.Background(), pvc))
}
