package workloads

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func deployment(_ context.Context, _ client.Reader, owner client.Object, name string) ([]client.Object, error) {
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: owner.GetNamespace(), Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "img"}}},
			},
		},
	}
	return []client.Object{d}, nil
}

func TestAppliedWorkloadIsOwnedByTheCRAndCarriesNoStatus(t *testing.T) {
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "kv", UID: "uid-1"}}
	kv.SetGroupVersionKind(kubevirtv1.GroupVersion.WithKind("KubeVirt"))
	w := &Workloads{Render: deployment}
	objs, err := deployment(context.Background(), nil, kv, "virt-controller")
	require.NoError(t, err)
	u, err := w.applied(kv, objs[0])
	require.NoError(t, err)
	require.NotContains(t, u.Object, "status")
	_, found := u.Object["metadata"].(map[string]any)["creationTimestamp"]
	require.False(t, found, "an applied object must not claim creationTimestamp")
	refs := u.GetOwnerReferences()
	require.Len(t, refs, 1)
	require.Equal(t, "KubeVirt", refs[0].Kind)
	require.Equal(t, "uid-1", string(refs[0].UID))
	require.True(t, *refs[0].Controller)

	elsewhere := objs[0].DeepCopyObject().(*appsv1.Deployment)
	elsewhere.Namespace = "other"
	u, err = w.applied(kv, elsewhere)
	require.NoError(t, err)
	require.Empty(t, u.GetOwnerReferences(), "an owner reference cannot cross namespaces")
}

func TestAClusterScopedCROwnsWhatItsComponentsNeedInAnyNamespace(t *testing.T) {
	cdi := &cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi", UID: "uid-2"}}
	cdi.SetGroupVersionKind(cdiv1.SchemeGroupVersion.WithKind("CDI"))
	w := &Workloads{Render: deployment}
	d, err := deployment(context.Background(), nil, cdi, "cdi-deployment")
	require.NoError(t, err)
	namespaced := d[0].DeepCopyObject().(*appsv1.Deployment)
	namespaced.Namespace = "cdi"
	for _, obj := range []client.Object{namespaced, Identity("cdi", "cdi-sa", Access{Cluster: []rbacv1.PolicyRule{Rule("", Read, "pods")}}, nil)[1]} {
		u, err := w.applied(cdi, obj)
		require.NoError(t, err)
		refs := u.GetOwnerReferences()
		require.Len(t, refs, 1, "%s is garbage collected with the CR", u.GetKind())
		require.Equal(t, "CDI", refs[0].Kind)
	}
}

func TestProbeSaysWhenTheWorkloadIsMissing(t *testing.T) {
	_, _, c, _ := setup(t)
	w := &Workloads{Client: c, Render: deployment, FieldOwner: "virt-operator"}
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt-hyperconverged", Name: "kubevirt"}}
	require.EqualError(t, w.Probe(context.Background(), kv, "virt-controller"), "virt-controller is not deployed")
	require.NoError(t, c.Create(context.Background(), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: kv.Namespace, Name: "virt-controller"}}))
	require.EqualError(t, w.Probe(context.Background(), kv, "virt-controller"), "virt-controller: 0 of 1 replicas updated")
	require.NoError(t, w.Undeploy(context.Background(), kv, "virt-controller"))
	require.EqualError(t, w.Probe(context.Background(), kv, "virt-controller"), "virt-controller is not deployed")
}
