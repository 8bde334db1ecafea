package hco

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/activities/kube"
	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

func newHC() *hcov1beta1.HyperConverged {
	return &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "u1",
	}}
}

func setup(t *testing.T, objs ...client.Object) (*Activities, client.Client) {
	scheme, err := kube.NewScheme()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	return &Activities{Client: c}, c
}

func TestEnsureComponentTwiceLeavesOneObject(t *testing.T) {
	hc := newHC()
	a, c := setup(t, hc)
	ref := HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: "u1"}
	plan, err := a.PlanComponents(context.Background(), ref)
	require.NoError(t, err)
	require.Len(t, plan, 4, "no HostPathProvisioner unless asked for")
	for i := 0; i < 2; i++ {
		require.NoError(t, a.EnsureComponent(context.Background(), EnsureComponentInput{HyperConverged: ref, Component: plan[1]}))
	}
	list := &cdiv1beta1.CDIList{}
	require.NoError(t, c.List(context.Background(), list))
	require.Len(t, list.Items, 1)
}

func TestApplyRevertsOnlyManagedDrift(t *testing.T) {
	hc := newHC()
	_, c := setup(t, hc)
	ctx := context.Background()
	desired := desiredKubeVirt(hc)
	wrote, err := Apply(ctx, c, desired)
	require.NoError(t, err)
	require.True(t, wrote)
	wrote, err = Apply(ctx, c, desiredKubeVirt(hc))
	require.NoError(t, err)
	require.False(t, wrote, "nothing changed, nothing written")

	kv := &kubevirtv1.KubeVirt{}
	key := types.NamespacedName{Namespace: hc.Namespace, Name: KubeVirtName}
	require.NoError(t, c.Get(ctx, key, kv))
	kv.Spec.ImagePullPolicy = "Always" // not managed: left alone
	require.NoError(t, c.Update(ctx, kv))
	wrote, err = Apply(ctx, c, desiredKubeVirt(hc))
	require.NoError(t, err)
	require.False(t, wrote)

	require.NoError(t, c.Get(ctx, key, kv))
	kv.Spec.Configuration.DeveloperConfiguration.FeatureGates = []string{"Snapshot"}
	require.NoError(t, c.Update(ctx, kv))
	wrote, err = Apply(ctx, c, desiredKubeVirt(hc))
	require.NoError(t, err)
	require.True(t, wrote)
	require.NoError(t, c.Get(ctx, key, kv))
	require.Contains(t, kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, "ExpandDisks")
}

func TestPlanFailsPermanentlyWhenTheHyperConvergedIsReplaced(t *testing.T) {
	hc := newHC()
	a, _ := setup(t, hc)
	_, err := a.PlanComponents(context.Background(), HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: "older-uid"})
	require.ErrorContains(t, err, "no longer exists")
}

func TestHostPathProvisionerOnlyWhenAnnotated(t *testing.T) {
	hc := newHC()
	require.Len(t, DesiredComponents(hc), 4)
	hc.Annotations = map[string]string{HostPathAnnotation: "/var/hpvolumes"}
	objs := DesiredComponents(hc)
	require.Len(t, objs, 5)
	require.Equal(t, KindHostPathProvisioner, RefOf(objs[4]).Kind)
}
