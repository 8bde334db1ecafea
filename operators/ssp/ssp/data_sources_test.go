package ssp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// sspWithCrons is an SSP CR whose DICTs keep fedora and the test guest.
func sspWithCrons(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	dict := func(name, ds, url string) sspv1beta3.DataImportCronTemplate {
		return sspv1beta3.DataImportCronTemplate{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: cdiv1.DataImportCronSpec{ManagedDataSource: ds, Schedule: "0 */12 * * *",
				Template: cdiv1.DataVolume{Spec: cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{
					Registry: &cdiv1.DataVolumeSourceRegistry{URL: ptr.To(url)}}}}}}
	}
	cr := &sspv1beta3.SSP{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt-hyperconverged", Name: "ssp"},
		Spec: sspv1beta3.SSPSpec{CommonTemplates: sspv1beta3.CommonTemplates{Namespace: "openshift",
			DataImportCronTemplates: []sspv1beta3.DataImportCronTemplate{
				dict("fedora-image-cron", "fedora", "docker://quay.io/containerdisks/fedora:latest"),
				dict("virtflow-test-guest-image-cron", "virtflow-test-guest", "docker://registry.virtflow.local:5000/virtflow/test-guest:latest"),
			}}}}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cr)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("ssp.kubevirt.io/v1beta3")
	u.SetKind("SSP")
	return u
}

func TestBootSourcesAreKeptByCronsUnlessSomeoneProvidedAClaim(t *testing.T) {
	handMade := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultBootImageNamespace, Name: "fedora"}}
	var patches int
	d, c := templatesDeployer(t, &patches, handMade)
	ctx, owner := context.Background(), sspWithCrons(t)
	require.Error(t, d.Probe(ctx, owner, DataSources), "no cron yet")
	require.NoError(t, d.Deploy(ctx, owner, DataSources))

	guest := &cdiv1.DataSource{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: DefaultBootImageNamespace, Name: "virtflow-test-guest"}, guest))
	require.Equal(t, "virtflow-test-guest-image-cron", guest.Labels["cdi.kubevirt.io/dataImportCron"], "the cron keeps it")
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: DefaultBootImageNamespace, Name: "virtflow-test-guest-image-cron"}, &cdiv1.DataImportCron{}))

	fedora := &cdiv1.DataSource{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: DefaultBootImageNamespace, Name: "fedora"}, fedora))
	require.NotContains(t, fedora.Labels, "cdi.kubevirt.io/dataImportCron", "a hand-made claim is left to its maker")
	require.Equal(t, "fedora", fedora.Spec.Source.PVC.Name)
	err := c.Get(ctx, client.ObjectKey{Namespace: DefaultBootImageNamespace, Name: "fedora-image-cron"}, &cdiv1.DataImportCron{})
	require.True(t, client.IgnoreNotFound(err) == nil && err != nil, "no cron for a DataSource someone else provides")
	require.NoError(t, d.Probe(ctx, owner, DataSources), "the unwanted fedora cron is not waited for")

	require.NoError(t, c.Delete(ctx, handMade))
	require.NoError(t, d.Deploy(ctx, owner, DataSources))
	require.NoError(t, d.Probe(ctx, owner, DataSources))

	ns := &corev1.Namespace{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: DefaultBootImageNamespace}, ns))
	require.Equal(t, "data-sources", ns.Labels["app.kubernetes.io/name"], "the namespace is SSP's")
	cron := &cdiv1.DataImportCron{}
	key := client.ObjectKey{Namespace: DefaultBootImageNamespace, Name: "virtflow-test-guest-image-cron"}
	require.NoError(t, c.Get(ctx, key, cron))
	delete(cron.Labels, "app.kubernetes.io/name")
	require.NoError(t, c.Update(ctx, cron))
	require.NoError(t, d.Deploy(ctx, owner, DataSources))
	require.NoError(t, c.Get(ctx, key, cron))
	require.Equal(t, "data-sources", cron.Labels["app.kubernetes.io/name"], "a cron's labels are put back")

	require.NoError(t, d.Undeploy(ctx, owner, DataSources))
	err = c.Get(ctx, client.ObjectKey{Namespace: DefaultBootImageNamespace, Name: "os-images.kubevirt.io:view"}, &rbacv1.Role{})
	require.True(t, apierrors.IsNotFound(err), "the open view role goes with the SSP: %v", err)
	crons := &cdiv1.DataImportCronList{}
	require.NoError(t, c.List(ctx, crons))
	require.Empty(t, crons.Items)
	sources := &cdiv1.DataSourceList{}
	require.NoError(t, c.List(ctx, sources, client.InNamespace(DefaultBootImageNamespace)))
	require.Empty(t, sources.Items)
}
