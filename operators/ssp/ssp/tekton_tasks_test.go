package ssp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// fakeTekton renders a namespaced and a cluster-scoped object, standing
// in for the Tasks and their ClusterRoles.
func fakeTekton(ns string) ([]*unstructured.Unstructured, error) {
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace(ns)
	cm.SetName("create-vm-from-template")
	role := &unstructured.Unstructured{}
	role.SetAPIVersion("rbac.authorization.k8s.io/v1")
	role.SetKind("ClusterRole")
	role.SetName("create-vm-from-template-task")
	return []*unstructured.Unstructured{cm, role}, nil
}

func TestTektonTasksWaitForTektonAndAreInstalledInTheAnnotatedNamespace(t *testing.T) {
	var patches int
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: tektonTaskCRD}}
	d, c := templatesDeployer(t, &patches)
	d.Tekton = fakeTekton
	ctx, owner := context.Background(), sspCR("openshift")
	owner.SetLabels(map[string]string{"app.kubernetes.io/part-of": "hyperconverged-cluster"})

	require.NoError(t, d.Deploy(ctx, owner, TektonTasks), "without Tekton there is nothing to install")
	require.NoError(t, d.Probe(ctx, owner, TektonTasks))
	require.Zero(t, patches)

	require.NoError(t, c.Create(ctx, crd))
	require.EqualError(t, d.Probe(ctx, owner, TektonTasks), "tekton-tasks: 0 of 2 objects installed in virtflow-pipelines")
	owner.SetAnnotations(map[string]string{TektonTasksNamespaceAnnotation: "pipes"})
	require.NoError(t, d.Deploy(ctx, owner, TektonTasks))
	require.NoError(t, d.Probe(ctx, owner, TektonTasks))
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "pipes"}, &corev1.Namespace{}))
	cm := &corev1.ConfigMap{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "pipes", Name: "create-vm-from-template"}, cm))
	require.Equal(t, map[string]string{"app.kubernetes.io/part-of": "hyperconverged-cluster",
		labelManagedBy: "ssp-operator", labelComponent: TektonTasks}, cm.Labels)

	require.NoError(t, d.Undeploy(ctx, owner, TektonTasks))
	require.Error(t, c.Get(ctx, client.ObjectKey{Name: "create-vm-from-template-task"}, &rbacv1.ClusterRole{}))
	require.EqualError(t, d.Probe(ctx, owner, TektonTasks), "tekton-tasks: 0 of 2 objects installed in pipes")
}
