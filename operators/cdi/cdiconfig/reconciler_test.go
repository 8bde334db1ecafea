package cdiconfig

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestUploadProxyComesFromWhatCDIOperatorDeployedUnlessOverridden(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	require.NoError(t, cdiv1.AddToScheme(scheme))
	cr := &cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi", UID: "u"}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(cr).Build()
	r := &Reconciler{Client: c, Namespace: "cdi-ns"}
	ctx := context.Background()
	status := func() cdiv1.CDIConfigStatus {
		_, err := r.Reconcile(ctx, ctrl.Request{})
		require.NoError(t, err)
		cfg := &cdiv1.CDIConfig{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Name: Name}, cfg))
		return cfg.Status
	}
	require.Nil(t, status().UploadProxyURL, "no URL before the proxy's Service exists")

	require.NoError(t, c.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "cdi-ns", Name: UploadProxyService},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.9"}}))
	require.NoError(t, c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "cdi-ns", Name: UploadProxyBundle},
		Data: map[string]string{BundleKey: "PEM"}}))
	st := status()
	require.Equal(t, "https://10.96.0.9", *st.UploadProxyURL)
	require.Equal(t, "PEM", *st.UploadProxyCA)

	override := "https://uploads.example.com"
	cr.Spec.Config = &cdiv1.CDIConfigSpec{UploadProxyURLOverride: &override}
	require.NoError(t, c.Update(ctx, cr))
	require.Equal(t, override, *status().UploadProxyURL)
}
