package workloads

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/kube/conditions"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

type fakeDeployer struct {
	deployed  map[string]bool
	unhealthy map[string]error
}

func (f *fakeDeployer) Deploy(_ context.Context, _ client.Object, n string) error {
	f.deployed[n] = true
	return nil
}
func (f *fakeDeployer) Undeploy(_ context.Context, _ client.Object, n string) error {
	delete(f.deployed, n)
	return nil
}
func (f *fakeDeployer) Readiness() string { return "its health check answers" }

func (f *fakeDeployer) Probe(_ context.Context, _ client.Object, n string) error {
	if !f.deployed[n] {
		return errors.New(n + " is not running")
	}
	return f.unhealthy[n]
}

func setup(t *testing.T) (*Reconciler, *fakeDeployer, client.Client, ctrl.Request) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	kv := &kubevirtv1.KubeVirt{}
	kv.Namespace, kv.Name, kv.Generation = "kubevirt-hyperconverged", "kubevirt", 1
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(kv).WithStatusSubresource(kv).Build()
	d := &fakeDeployer{deployed: map[string]bool{}, unhealthy: map[string]error{}}
	r := &Reconciler{Client: c, Deployer: d, Recorder: record.NewFakeRecorder(10), Kind: Kind{
		GVK: kubevirtv1.GroupVersion.WithKind("KubeVirt"), Components: []string{"virt-api", "virt-controller"},
		Finalizer: "foregroundDeleteKubeVirt", Style: KubeVirtStyle, Version: "v1",
	}}
	return r, d, c, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: kv.Namespace, Name: kv.Name}}
}

func condition(t *testing.T, c client.Client, req ctrl.Request, typ string) (string, string) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(kubevirtv1.GroupVersion.WithKind("KubeVirt"))
	require.NoError(t, c.Get(context.Background(), req.NamespacedName, obj))
	cond, ok := conditions.Find(conditions.Of(obj), typ)
	require.True(t, ok, "condition %s missing", typ)
	return cond.Status, cond.Message
}

func TestAvailableOnlyWhenEveryComponentAnswersItsHealthCheck(t *testing.T) {
	r, d, c, req := setup(t)
	d.unhealthy["virt-controller"] = errors.New("virt-controller health check answered 503")
	res, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.NotZero(t, res.RequeueAfter)
	status, msg := condition(t, c, req, "Available")
	require.Equal(t, "False", status)
	require.Contains(t, msg, "1 of 2 components ready: virt-controller health check answered 503")
	require.True(t, d.deployed["virt-api"] && d.deployed["virt-controller"])

	delete(d.unhealthy, "virt-controller")
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	status, msg = condition(t, c, req, "Available")
	require.Equal(t, "True", status)
	require.Equal(t, "All 2 components are ready (its health check answers).", msg, "says what ready means")
}

// A component the CR does not ask for is not deployed (and is removed
// once the spec stops asking for it); one it asks for that virtflow lacks
// is named, and the CR is not Available.
func TestOnlyWantedComponentsAreDeployedAndAWantedMissingOneIsNamed(t *testing.T) {
	r, d, c, req := setup(t)
	wanted := []string{"virt-api"}
	r.Kind.NotBuilt = []string{"vm-console-proxy", "ovs"}
	r.Kind.Wanted = func(*unstructured.Unstructured) []string { return wanted }
	d.deployed["virt-controller"] = true // deployed under an earlier spec
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"virt-api": true}, d.deployed, "the component no longer asked for is removed")
	status, msg := condition(t, c, req, "Available")
	require.Equal(t, "True", status)
	require.Equal(t, "All 1 components are ready (its health check answers).", msg)

	wanted = []string{"virt-api", "ovs"}
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	status, msg = condition(t, c, req, "Available")
	require.Equal(t, "False", status, "a component asked for and not built is no placeholder")
	require.Equal(t, "1 of 1 components ready: ovs: not built in virtflow yet", msg)
}

func TestDeletionUndeploysComponents(t *testing.T) {
	r, d, c, req := setup(t)
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	kv := &kubevirtv1.KubeVirt{}
	require.NoError(t, c.Get(context.Background(), req.NamespacedName, kv))
	require.Contains(t, kv.Finalizers, "foregroundDeleteKubeVirt")
	require.NoError(t, c.Delete(context.Background(), kv))
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Empty(t, d.deployed)
	require.Error(t, c.Get(context.Background(), req.NamespacedName, &kubevirtv1.KubeVirt{}))
}

func TestAManifestThatCannotBeInstalledDegradesTheCR(t *testing.T) {
	r, _, c, req := setup(t)
	r.Kind.Manifests = func() []client.Object {
		bad := &corev1.ConfigMap{}
		bad.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
		bad.Name = "Not A Valid Name"
		return []client.Object{bad}
	}
	r.Client = &failingPatch{Client: c}
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	status, msg := condition(t, c, req, "Available")
	require.Equal(t, "False", status)
	require.Contains(t, msg, "installing ConfigMap Not A Valid Name")
	degraded, _ := condition(t, c, req, "Degraded")
	require.Equal(t, "True", degraded)
}

// failingPatch rejects server-side apply the way the API server rejects an
// invalid object.
type failingPatch struct{ client.Client }

func (f *failingPatch) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	if p == client.Apply {
		return errors.New(obj.GetName() + " is invalid")
	}
	return f.Client.Patch(ctx, obj, p, opts...)
}
