package networkaddonsconfig

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
	"github.com/virtflow/virtflow/kube/rbacpolicy"
	"github.com/virtflow/virtflow/operators/networkaddons/ipamcontroller"
)

func ipamNAC(ipam map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networkaddonsoperator.network.kubevirt.io/v1", "kind": "NetworkAddonsConfig",
		"metadata": map[string]any{"name": "cluster"}, "spec": map[string]any{"kubevirtIpamController": ipam},
	}}
}

func renderIpam(t *testing.T, owner client.Object) []client.Object {
	t.Helper()
	objs, err := Install{Namespace: ns, Image: "img"}.Render(context.Background(), nil, owner, KubevirtIpamController)
	require.NoError(t, err)
	return objs
}

func TestIpamControllerRendersUpstreamsObjects(t *testing.T) {
	objs := renderIpam(t, ipamNAC(map[string]any{}))
	d, ok := objs[0].(*appsv1.Deployment)
	require.True(t, ok, "the Deployment first: its readiness is the component's")
	assert.Equal(t, IpamControllerManager, d.Name)
	assert.Equal(t, map[string]string{"app": "ipam-virt-workloads", "control-plane": "manager"}, d.Spec.Selector.MatchLabels)
	assert.Subset(t, d.Spec.Template.Labels, d.Spec.Selector.MatchLabels)
	assert.Equal(t, IpamControllerManager, d.Spec.Template.Spec.ServiceAccountName)
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{"/usr/bin/virtflow", "kubevirt-ipam-controller",
		"--certificates-dir=" + ipamcontroller.CertDir, "--default-network-nad-namespace=ovn-kubernetes"}, c.Command)
	assert.True(t, *c.SecurityContext.RunAsNonRoot)
	assert.Equal(t, ipamcontroller.CertDir, c.VolumeMounts[0].MountPath)

	svc := find[*corev1.Service](t, objs, IpamControllerService)
	assert.Equal(t, d.Spec.Selector.MatchLabels, svc.Spec.Selector, "the Service reaches the controller's pods")
	find[*corev1.Secret](t, objs, IpamControllerService)
	crd := find[*apiextensionsv1.CustomResourceDefinition](t, objs, "ipamclaims.k8s.cni.cncf.io")
	assert.Equal(t, "IPAMClaim", crd.Spec.Names.Kind)
	assert.Equal(t, apiextensionsv1.NamespaceScoped, crd.Spec.Scope)
}

func TestIpamControllerTakesTheDefaultNetworksNamespaceFromTheSpec(t *testing.T) {
	d := renderIpam(t, ipamNAC(map[string]any{"defaultNetworkNADNamespace": "udn-defaults"}))[0].(*appsv1.Deployment)
	assert.Contains(t, d.Spec.Template.Spec.Containers[0].Command, "--default-network-nad-namespace=udn-defaults")
}

func TestTheIpamMutatorIsUpstreams(t *testing.T) {
	m := find[*admissionregistrationv1.MutatingWebhookConfiguration](t, renderIpam(t, ipamNAC(map[string]any{})), IpamControllerMutator)
	require.Len(t, m.Webhooks, 1)
	h := m.Webhooks[0]
	assert.Equal(t, "ipam-claims.k8s.cni.cncf.io", h.Name)
	assert.Equal(t, admissionregistrationv1.Fail, *h.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.SideEffectClassNone, *h.SideEffects)
	assert.Equal(t, "/mutate-v1-pod", *h.ClientConfig.Service.Path)
	assert.Equal(t, IpamControllerService, h.ClientConfig.Service.Name)
	assert.NotEmpty(t, h.ClientConfig.CABundle)
	assert.Equal(t, &metav1.LabelSelector{MatchLabels: map[string]string{"kubevirt.io": "virt-launcher"}}, h.ObjectSelector)
	require.Len(t, h.Rules, 1)
	assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, h.Rules[0].Operations)
	assert.Equal(t, []string{""}, h.Rules[0].APIGroups)
	assert.Equal(t, []string{"pods"}, h.Rules[0].Resources)
}

func TestIpamControllersRoleIsNarrow(t *testing.T) {
	objs := renderIpam(t, ipamNAC(map[string]any{}))
	assert.Empty(t, rbacpolicy.Check(objs))
	find[*corev1.ServiceAccount](t, objs, IpamControllerManager)
	cr := find[*rbacv1.ClusterRole](t, objs, IpamControllerRole)
	writes := map[string][]string{}
	for _, rule := range cr.Rules {
		assert.NotContains(t, rule.Resources, "secrets")
		assert.NotContains(t, rule.Resources, "pods")
		for _, v := range rule.Verbs {
			if v != "get" && v != "list" && v != "watch" {
				writes[v] = append(writes[v], rule.Resources...)
			}
		}
	}
	assert.Equal(t, map[string][]string{
		"update": {"virtualmachines/finalizers", "virtualmachineinstances/finalizers", "ipamclaims"},
		"create": {"ipamclaims"},
	}, writes, "it writes claims only, and never deletes one")
	b := find[*rbacv1.ClusterRoleBinding](t, objs, IpamControllerBinding)
	assert.Equal(t, IpamControllerRole, b.RoleRef.Name)
	for _, o := range objs {
		_, isRole := o.(*rbacv1.Role)
		assert.False(t, isRole, "no namespaced rules: it elects no leader")
	}
}

// TestTheIPAMClaimCRDDescribesTheGoTypes: every field a full claim
// encodes is in the CRD's schema, and the required ones always encode.
func TestTheIPAMClaimCRDDescribesTheGoTypes(t *testing.T) {
	claim := ipamv1alpha1.IPAMClaim{
		Spec: ipamv1alpha1.IPAMClaimSpec{Network: "n", Interface: "i"},
		Status: ipamv1alpha1.IPAMClaimStatus{IPs: []string{"10.0.0.2/24"}, OwnerPod: ipamv1alpha1.OwnerPod{Name: "p"},
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "R", Message: "m", ObservedGeneration: 1}}},
	}
	data, err := json.Marshal(claim)
	require.NoError(t, err)
	var encoded map[string]any
	require.NoError(t, json.Unmarshal(data, &encoded))
	schema := IPAMClaimCRD().Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, part := range []string{"spec", "status"} {
		assertDescribed(t, part, encoded[part], schema.Properties[part])
	}
	empty, err := json.Marshal(ipamv1alpha1.IPAMClaim{})
	require.NoError(t, err)
	assert.Contains(t, string(empty), `"spec":{"network":"","interface":""}`, "required even when empty")
}

func assertDescribed(t *testing.T, path string, v any, s apiextensionsv1.JSONSchemaProps) {
	t.Helper()
	switch val := v.(type) {
	case map[string]any:
		require.Equal(t, "object", s.Type, path)
		for k, sub := range val {
			prop, ok := s.Properties[k]
			require.True(t, ok, "%s.%s is not in the CRD", path, k)
			assertDescribed(t, path+"."+k, sub, prop)
		}
		for _, r := range s.Required {
			assert.Contains(t, val, r, "%s.%s is required", path, r)
		}
	case []any:
		require.Equal(t, "array", s.Type, path)
		for _, item := range val {
			assertDescribed(t, path+"[]", item, *s.Items.Schema)
		}
	}
}
