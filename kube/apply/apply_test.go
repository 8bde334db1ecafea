package apply

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/operands"
)

// desiredKubeVirt is the KubeVirt CR a default HyperConverged derives.
func desiredKubeVirt(hc *hcov1beta1.HyperConverged) *kubevirtv1.KubeVirt {
	return operands.Desired(hc)[0].(*kubevirtv1.KubeVirt)
}

func TestManagedRevertsOnlyManagedDrift(t *testing.T) {
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "u1",
	}}
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).Build()
	ctx := context.Background()
	desired := desiredKubeVirt(hc)
	wrote, err := Managed(ctx, c, desired)
	require.NoError(t, err)
	require.True(t, wrote)
	wrote, err = Managed(ctx, c, desiredKubeVirt(hc))
	require.NoError(t, err)
	require.False(t, wrote, "nothing changed, nothing written")

	kv := &kubevirtv1.KubeVirt{}
	key := types.NamespacedName{Namespace: hc.Namespace, Name: operands.KubeVirtName}
	require.NoError(t, c.Get(ctx, key, kv))
	kv.Spec.ImagePullPolicy = "Always" // not managed: left alone
	require.NoError(t, c.Update(ctx, kv))
	wrote, err = Managed(ctx, c, desiredKubeVirt(hc))
	require.NoError(t, err)
	require.False(t, wrote)

	require.NoError(t, c.Get(ctx, key, kv))
	kv.Spec.Configuration.DeveloperConfiguration.FeatureGates = []string{"Snapshot"}
	require.NoError(t, c.Update(ctx, kv))
	wrote, err = Managed(ctx, c, desiredKubeVirt(hc))
	require.NoError(t, err)
	require.True(t, wrote)
	require.NoError(t, c.Get(ctx, key, kv))
	require.Contains(t, kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, "ExpandDisks")
}

// An annotation the HyperConverged sets (the SSP's boot-image namespace)
// follows a change of it; others' annotations stay.
func TestManagedKeepsManagedAnnotations(t *testing.T) {
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "u1",
	}}
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).Build()
	ctx := context.Background()
	ssp := func() *sspv1beta3.SSP {
		for _, o := range operands.Desired(hc) {
			if s, ok := o.(*sspv1beta3.SSP); ok {
				return s
			}
		}
		t.Fatal("no SSP")
		return nil
	}
	_, err = Managed(ctx, c, ssp())
	require.NoError(t, err)
	got := &sspv1beta3.SSP{}
	key := types.NamespacedName{Namespace: hc.Namespace, Name: operands.SSPName}
	require.NoError(t, c.Get(ctx, key, got))
	got.Annotations["someone"] = "else"
	require.NoError(t, c.Update(ctx, got))
	ns := "golden"
	hc.Spec.CommonBootImageNamespace = &ns
	wrote, err := Managed(ctx, c, ssp())
	require.NoError(t, err)
	require.True(t, wrote)
	require.NoError(t, c.Get(ctx, key, got))
	require.Equal(t, "golden", got.Annotations[operands.BootImageNamespaceAnnotation])
	require.Equal(t, "else", got.Annotations["someone"])
}
