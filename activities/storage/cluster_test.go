package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/virtflow/virtflow/kube/hostpathvolume"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// testNode is the node the activities under test run on.
const testNode = "node01"

// cluster is a fake API server holding DataVolumes, their claims and
// hostpath volumes whose directories live under root, and answering
// SubjectAccessReviews from allowed (user → namespace).
type cluster struct {
	t       *testing.T
	root    string
	objs    []client.Object
	seen    map[string]bool
	allowed map[string]string
	reviews []authorizationv1.SubjectAccessReview
	c       client.Client
}

func newCluster(t *testing.T) *cluster {
	return &cluster{t: t, root: t.TempDir(), seen: map[string]bool{}, allowed: map[string]string{}}
}

func (cl *cluster) add(objs ...client.Object) {
	require.Nil(cl.t, cl.c, "objects are added before the client is built")
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && !cl.seen[ns] {
			cl.seen[ns] = true
			cl.objs = append(cl.objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		}
	}
	cl.objs = append(cl.objs, objs...)
}

// volume adds claim ns/name controlled by owner (none when nil), bound to
// a hostpath volume pinned to node, and creates its directory.
func (cl *cluster) volume(ns, name string, owner *metav1.OwnerReference, node string) (*corev1.PersistentVolumeClaim, string) {
	uid := types.UID("uid-claim-" + ns + "-" + name)
	pvName := "pvc-" + string(uid)
	dir := filepath.Join(cl.root, "var", "hpvolumes", pvName)
	require.NoError(cl.t, os.MkdirAll(dir, 0o755))
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid},
		Spec:   corev1.PersistentVolumeClaimSpec{VolumeName: pvName},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	if owner != nil {
		pvc.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pvName}, Spec: corev1.PersistentVolumeSpec{
		Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: name, UID: uid},
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
			Driver: hostpathvolume.DriverName, VolumeHandle: pvName, VolumeAttributes: map[string]string{hostpathvolume.ContextPath: dir}}},
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: hostpathvolume.TopologyKey, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
	}}
	cl.add(pvc, pv)
	return pvc, dir
}

// dataVolume adds DataVolume ns/name of source and its claim on testNode;
// it returns the DataVolume and its volume's directory.
func (cl *cluster) dataVolume(ns, name string, src cdiv1.DataVolumeSource) (*cdiv1.DataVolume, string) {
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-dv-" + ns + "-" + name)},
		Spec: cdiv1.DataVolumeSpec{Source: &src}}
	_, dir := cl.volume(ns, name, metav1.NewControllerRef(dv, cdiv1.SchemeGroupVersion.WithKind("DataVolume")), testNode)
	cl.add(dv)
	return dv, dir
}

// claim is the claim named name, to edit before the client is built.
func (cl *cluster) claim(name string) *corev1.PersistentVolumeClaim {
	for _, o := range cl.objs {
		if pvc, ok := o.(*corev1.PersistentVolumeClaim); ok && pvc.Name == name {
			return pvc
		}
	}
	cl.t.Fatalf("no claim %s", name)
	return nil
}

// editVolume edits the volume bound to the claim named claim.
func (cl *cluster) editVolume(claim string, edit func(*corev1.PersistentVolume)) {
	volume := cl.claim(claim).Spec.VolumeName
	for _, o := range cl.objs {
		if pv, ok := o.(*corev1.PersistentVolume); ok && pv.Name == volume {
			edit(pv)
			return
		}
	}
	cl.t.Fatalf("no volume of claim %s", claim)
}

// client is the fake API server, built once every object was added.
func (cl *cluster) client() client.Client {
	if cl.c != nil {
		return cl.c
	}
	s, err := kubescheme.New()
	require.NoError(cl.t, err)
	cl.c = fake.NewClientBuilder().WithScheme(s).WithObjects(cl.objs...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			sar, ok := obj.(*authorizationv1.SubjectAccessReview)
			if !ok {
				return c.Create(ctx, obj, opts...)
			}
			cl.reviews = append(cl.reviews, *sar.DeepCopy())
			ra := sar.Spec.ResourceAttributes
			sar.Status.Allowed = ra != nil && cl.allowed[sar.Spec.User] == ra.Namespace && ra.Resource == "datavolumes" && ra.Subresource == "source"
			return nil
		},
	}).Build()
	return cl.c
}

// activities run on testNode in workflow wfID.
func (cl *cluster) activities(wfID string) *Activities {
	return &Activities{Client: cl.client(), NodeName: testNode, HostRoot: cl.root, DiskUID: diskOwner, DiskGID: diskOwner,
		executionID: func(context.Context) string { return wfID }}
}

// requireRefused asserts a non-retryable refusal of type typ whose message
// holds want.
func requireRefused(t *testing.T, err error, typ, want string) {
	t.Helper()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Equal(t, typ, app.Type())
	require.True(t, app.NonRetryable(), "a refusal is final")
	require.Contains(t, app.Message(), want)
}
