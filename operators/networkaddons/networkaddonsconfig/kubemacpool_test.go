package networkaddonsconfig

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/kube/rbacpolicy"
	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/operators/networkaddons/kubemacpool"
)

const ns = "kubevirt-hyperconverged"

func nac(kmp map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networkaddonsoperator.network.kubevirt.io/v1", "kind": "NetworkAddonsConfig",
		"metadata": map[string]any{"name": "cluster"}, "spec": map[string]any{"kubeMacPool": kmp},
	}}
}

func render(t *testing.T, r client.Reader, owner client.Object) []client.Object {
	t.Helper()
	objs, err := Install{Namespace: ns, Image: "img"}.Render(context.Background(), r, owner, KubeMacPool)
	require.NoError(t, err)
	return objs
}

func find[T client.Object](t *testing.T, objs []client.Object, name string) T {
	t.Helper()
	for _, o := range objs {
		if v, ok := o.(T); ok && o.GetName() == name {
			return v
		}
	}
	var zero T
	require.Failf(t, "not rendered", "%T %s", zero, name)
	return zero
}

func TestKubeMacPoolRendersUpstreamsObjects(t *testing.T) {
	objs := render(t, nil, nac(map[string]any{"rangeStart": "02:aa:00:00:00:00", "rangeEnd": "02:aa:00:00:00:ff"}))
	d, ok := objs[0].(*appsv1.Deployment)
	require.True(t, ok, "the Deployment first: its readiness is the component's")
	assert.Equal(t, KubeMacPoolManager, d.Name)
	assert.Equal(t, "mac-controller-manager", d.Spec.Template.Labels["control-plane"])
	assert.Equal(t, appsv1.RecreateDeploymentStrategyType, d.Spec.Strategy.Type, "never two pools at once")
	assert.Equal(t, kubeMacPoolSA, d.Spec.Template.Spec.ServiceAccountName)
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{"/usr/bin/virtflow", "kubemacpool"}, c.Command[:2])
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Secret == nil {
			continue
		}
		for _, item := range v.Secret.Items {
			assert.Contains(t, []string{webhookcert.CertFile, webhookcert.KeyFile}, item.Key, "no CA key in the pod")
		}
	}
	find[*corev1.Service](t, objs, KubeMacPoolService)
	find[*corev1.Secret](t, objs, KubeMacPoolService)
	cm := find[*corev1.ConfigMap](t, objs, RangeConfig)
	assert.Equal(t, map[string]string{RangeStartKey: "02:aa:00:00:00:00", RangeEndKey: "02:aa:00:00:00:ff"}, cm.Data)
	find[*corev1.ServiceAccount](t, objs, kubeMacPoolSA)
}

func TestTheMutatorIsUpstreams(t *testing.T) {
	objs := render(t, nil, nac(map[string]any{}))
	m := find[*admissionregistrationv1.MutatingWebhookConfiguration](t, objs, KubeMacPoolMutator)
	require.Len(t, m.Webhooks, 1)
	h := m.Webhooks[0]
	assert.Equal(t, kubemacpool.VMWebhookName, h.Name)
	assert.Equal(t, admissionregistrationv1.Fail, *h.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.SideEffectClassNoneOnDryRun, *h.SideEffects)
	assert.Equal(t, kubemacpool.MutatePath, *h.ClientConfig.Service.Path)
	assert.Equal(t, KubeMacPoolService, h.ClientConfig.Service.Name)
	assert.NotEmpty(t, h.ClientConfig.CABundle)
	require.Len(t, h.Rules, 1)
	assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, h.Rules[0].Operations)
	assert.Equal(t, []string{"kubevirt.io"}, h.Rules[0].APIGroups)
	assert.Equal(t, []string{"virtualmachines"}, h.Rules[0].Resources)
	sel, err := metav1.LabelSelectorAsSelector(h.NamespaceSelector)
	require.NoError(t, err)
	assert.False(t, sel.Matches(labelsOf(kubemacpool.VMWebhookName, "ignore")), "opt-out")
	assert.False(t, sel.Matches(labelsOf("openshift.io/run-level", "0")))
	assert.True(t, sel.Matches(labelsOf("team", "a")))
}

func TestKubeMacPoolsRoleIsNarrow(t *testing.T) {
	objs := render(t, nil, nac(map[string]any{}))
	assert.Empty(t, rbacpolicy.Check(objs))
	cr := find[*rbacv1.ClusterRole](t, objs, kubeMacPoolRole)
	for _, rule := range cr.Rules {
		assert.ElementsMatch(t, []string{"get", "list", "watch"}, rule.Verbs, "kubemacpool writes no VM or namespace: %v", rule)
		assert.NotContains(t, rule.Resources, "secrets")
	}
	role := find[*rbacv1.Role](t, objs, kubeMacPoolRole)
	assert.Equal(t, ns, role.Namespace)
	var resources []string
	for _, rule := range role.Rules {
		resources = append(resources, rule.Resources...)
		if slices.Contains(rule.Resources, "configmaps") {
			assert.Equal(t, []string{kubemacpool.JournalConfigMap}, rule.ResourceNames, "only its journal")
		}
	}
	assert.ElementsMatch(t, []string{"leases", "events", "configmaps"}, resources)
}

func TestAGeneratedRangeIsKeptAcrossRenders(t *testing.T) {
	first := find[*corev1.ConfigMap](t, render(t, nil, nac(map[string]any{})), RangeConfig)
	_, err := kubemacpool.ParseRange(first.Data[RangeStartKey], first.Data[RangeEndKey])
	require.NoError(t, err, "the default range is valid")
	assert.Equal(t, "02", first.Data[RangeStartKey][:2])

	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	stored := fake.NewClientBuilder().WithScheme(scheme).WithObjects(first).Build()
	for i := 0; i < 3; i++ {
		again := find[*corev1.ConfigMap](t, render(t, stored, nac(map[string]any{})), RangeConfig)
		assert.Equal(t, first.Data, again.Data, "a restarted operator keeps the range")
	}
	d := render(t, stored, nac(map[string]any{}))[0].(*appsv1.Deployment)
	var fromConfig []string
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name == RangeConfig {
			fromConfig = append(fromConfig, e.Name)
		}
	}
	assert.ElementsMatch(t, []string{kubemacpool.RangeStartEnv, kubemacpool.RangeEndEnv}, fromConfig)
}

func TestAConfiguredRangeWinsAndABadOneIsRefused(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	old := rangeConfigMap(ns, kubemacpool.Range{}, nil)
	old.Data = map[string]string{RangeStartKey: "02:11:11:00:00:00", RangeEndKey: "02:11:11:ff:ff:ff"}
	stored := fake.NewClientBuilder().WithScheme(scheme).WithObjects(old).Build()
	cm := find[*corev1.ConfigMap](t, render(t, stored, nac(map[string]any{"rangeStart": "02:22:00:00:00:00", "rangeEnd": "02:22:00:00:00:10"})), RangeConfig)
	assert.Equal(t, "02:22:00:00:00:00", cm.Data[RangeStartKey])

	_, err := Install{Namespace: ns, Image: "img"}.Render(context.Background(), stored, nac(map[string]any{"rangeStart": "02:22:00:00:00:00"}), KubeMacPool)
	assert.ErrorContains(t, err, "both or none of the KubeMacPool ranges needs to be configured")
	_, err = Install{Namespace: ns, Image: "img"}.Render(context.Background(), stored, nac(map[string]any{"rangeStart": "zz", "rangeEnd": "02:22:00:00:00:10"}), KubeMacPool)
	assert.ErrorContains(t, err, "failed to parse rangeStart because the mac address is invalid")
}

// The spec decides, as upstream's: what it names is deployed (bridge-marker
// with linuxBridge), and a component it names that virtflow lacks is named
// too, so the CR cannot be Available with it missing.
func TestTheSpecNamesTheComponents(t *testing.T) {
	k := Kind("v")
	assert.Equal(t, []string{KubeMacPool, Multus, LinuxBridge, BridgeMarker, KubevirtIpamController}, k.Components)
	spec := func(fields ...string) *unstructured.Unstructured {
		s := map[string]any{}
		for _, f := range fields {
			s[f] = map[string]any{}
		}
		return &unstructured.Unstructured{Object: map[string]any{"spec": s}}
	}
	assert.ElementsMatch(t, []string{KubeMacPool, Multus, LinuxBridge, BridgeMarker, KubevirtIpamController},
		k.Wanted(spec("kubeMacPool", "multus", "linuxBridge", "kubevirtIpamController")))
	assert.ElementsMatch(t, []string{KubevirtIpamController}, k.Wanted(spec("kubevirtIpamController")))
	assert.ElementsMatch(t, []string{Multus}, k.Wanted(spec("multus")))
	assert.ElementsMatch(t, []string{Multus, "ovs", "macvtap"}, k.Wanted(spec("multus", "ovs", "macvtap")))
	assert.Empty(t, k.Wanted(spec()))
}

func labelsOf(k, v string) k8slabels.Set { return k8slabels.Set{k: v} }
