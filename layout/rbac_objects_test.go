package layout

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/deploy"
	"github.com/virtflow/virtflow/kube/apply"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/operators/hco/hyperconverged"
	"github.com/virtflow/virtflow/operators/hostpathprovisioner/hostpathprovisioner"
	"github.com/virtflow/virtflow/operators/kubevirt/kubevirt"
	"github.com/virtflow/virtflow/operators/networkaddons/networkaddonsconfig"
	"github.com/virtflow/virtflow/operators/ssp/ssp"
	"github.com/virtflow/virtflow/tasks"
)

// installNS is where deploy/ installs virtflow and the operators run
// their components.
const installNS = "kubevirt-hyperconverged"

// typed converts what the RBAC and workload checks read to its Go type;
// anything else stays unstructured.
func typed(t *testing.T, u *unstructured.Unstructured) client.Object {
	t.Helper()
	var obj client.Object
	switch u.GetKind() {
	case "ClusterRole":
		obj = &rbacv1.ClusterRole{}
	case "Role":
		obj = &rbacv1.Role{}
	case "ClusterRoleBinding":
		obj = &rbacv1.ClusterRoleBinding{}
	case "RoleBinding":
		obj = &rbacv1.RoleBinding{}
	case "ServiceAccount":
		obj = &corev1.ServiceAccount{}
	case "Deployment":
		obj = &appsv1.Deployment{}
	case "DaemonSet":
		obj = &appsv1.DaemonSet{}
	default:
		return u
	}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj), u.GetName())
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return obj
}

func decoded(t *testing.T, file string, data []byte) []client.Object {
	t.Helper()
	us, err := apply.Decode(file, data)
	require.NoError(t, err)
	var out []client.Object
	for _, u := range us {
		out = append(out, typed(t, u))
	}
	return out
}

// overlay is what `kubectl apply -k deploy/<name>` creates.
func overlay(t *testing.T, name string) []client.Object {
	t.Helper()
	if objs, ok := memo.overlays[name]; ok {
		return objs
	}
	out, err := deploy.Overlay(name, nil)
	require.NoError(t, err)
	if memo.overlays == nil {
		memo.overlays = map[string][]client.Object{}
	}
	memo.overlays[name] = decoded(t, name, out)
	return memo.overlays[name]
}

// deployed is every object deploy/ holds: both overlays, and the RBAC files
// and the in-process identity the test harness applies by themselves.
func deployed(t *testing.T) []client.Object {
	t.Helper()
	if memo.deployed == nil {
		memo.deployed = readDeployed(t)
	}
	return memo.deployed
}

// memo keeps what the RBAC tests read and render (keys and certificates
// take a while) for the tests after the first; they do not run in parallel.
var memo struct {
	overlays map[string][]client.Object
	deployed []client.Object
	rendered map[string][]client.Object
}

func readDeployed(t *testing.T) []client.Object {
	t.Helper()
	objs := slices.Concat(overlay(t, deploy.ClusterOverlay), overlay(t, deploy.EmbeddedOverlay))
	rbac, err := deploy.RBAC()
	require.NoError(t, err)
	for _, name := range deploy.SortedNames(rbac) {
		objs = append(objs, decoded(t, name, rbac[name])...)
	}
	inProcess, err := deploy.InProcessIdentity()
	require.NoError(t, err)
	return append(objs, decoded(t, "inprocess-identity.yaml", inProcess)...)
}

// rendered are the objects each operator writes, by its service account:
// every component Render returns, and what the operators install beside
// their components.
func rendered(t *testing.T) map[string][]client.Object {
	t.Helper()
	if memo.rendered == nil {
		memo.rendered = render(t)
	}
	return memo.rendered
}

func render(t *testing.T) map[string][]client.Object {
	t.Helper()
	ctx := context.Background()
	out := map[string][]client.Object{}
	render := func(account string, r func(context.Context, client.Reader, client.Object, string) ([]client.Object, error), owner client.Object, components ...string) {
		for _, c := range components {
			objs, err := r(ctx, nil, owner, c)
			require.NoError(t, err, c)
			out[account] = append(out[account], objs...)
		}
	}
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: installNS, Name: "kubevirt"}}
	render("kubevirt-operator", kubevirt.Install{Image: "img"}.Render, kv, kubevirt.Components...)
	out["kubevirt-operator"] = append(out["kubevirt-operator"], kubevirt.Kind("v").Manifests()...)
	render("cdi-operator", cdi.Install{Namespace: installNS, Image: "img"}.Render, &cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}}, cdi.Components...)
	hpp := &hppv1beta1.HostPathProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "hpp"}}
	render("hostpath-provisioner-operator", hostpathprovisioner.Install{Namespace: installNS, Image: "img"}.Render, hpp, hostpathprovisioner.CSIDaemonSet)
	nac := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networkaddonsoperator.network.kubevirt.io/v1", "kind": "NetworkAddonsConfig",
		"metadata": map[string]any{"name": "cluster"}, "spec": map[string]any{"kubeMacPool": map[string]any{}},
	}}
	render("cluster-network-addons-operator", networkaddonsconfig.Install{Namespace: installNS, Image: "img"}.Render, nac, networkaddonsconfig.Components...)
	out["ssp-operator"] = sspObjects(t)
	out["hyperconverged-cluster-operator"] = hcoObjects(t)
	return out
}

// sspCR is an SSP as hco-operator derives it.
func sspCR() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ssp.kubevirt.io/v1beta3", "kind": "SSP",
		"metadata": map[string]any{"name": "ssp", "namespace": installNS},
		"spec":     map[string]any{"commonTemplates": map[string]any{"namespace": "openshift"}},
	}}
}

func sspObjects(t *testing.T) []client.Object {
	t.Helper()
	objs, err := ssp.Install{Namespace: installNS, Image: "img"}.Render(context.Background(), nil, sspCR(), ssp.Validator)
	require.NoError(t, err)
	operands, err := ssp.OperandRBAC(sspCR())
	require.NoError(t, err)
	objs = append(append(objs, operands...), ssp.DeleteProtection()...)
	taskObjs, err := tasks.Manifests(tasks.Images{Tasks: "t", DiskVirt: "d"}, ssp.DefaultTektonTasksNamespace)
	require.NoError(t, err)
	for _, u := range taskObjs {
		objs = append(objs, typed(t, u))
	}
	return objs
}

// hcoObjects are the webhook configurations, certificates and the
// namespace policy hco-operator keeps.
func hcoObjects(t *testing.T) []client.Object {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "hyperconvergeds.hco.kubevirt.io"}}
	r := fake.NewClientBuilder().WithScheme(scheme).WithObjects(crd).Build()
	objs, err := hyperconverged.WebhookObjects(context.Background(), r, installNS)
	require.NoError(t, err)
	hpp, err := hostpathprovisioner.WebhookObjects(context.Background(), r, installNS)
	require.NoError(t, err)
	return append(objs, hpp...)
}
