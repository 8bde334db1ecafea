package datavolume

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/virtflow/virtflow/kube/scheme"
)

// grants is what alice may do, as "verb resource[/subresource] namespace".
type grants map[string]bool

// reviews records the SubjectAccessReviews sent, in the same notation.
type reviews []string

func attrs(ra *authorizationv1.ResourceAttributes) string {
	res := ra.Resource
	if ra.Subresource != "" {
		res += "/" + ra.Subresource
	}
	return ra.Verb + " " + res + " " + ra.Namespace
}

// apiValidator is a Validator over a fake API server holding the
// namespaces ns and src and objs, answering reviews from g.
func apiValidator(t *testing.T, g grants, objs ...client.Object) (*Validator, *reviews) {
	t.Helper()
	s, err := scheme.New()
	require.NoError(t, err)
	sent := new(reviews)
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "src"}})
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			sar, ok := obj.(*authorizationv1.SubjectAccessReview)
			if !ok {
				return c.Create(ctx, obj, opts...)
			}
			if sar.Spec.User == "broken" {
				return errors.New("subjectaccessreviews are down")
			}
			*sent = append(*sent, attrs(sar.Spec.ResourceAttributes))
			sar.Status.Allowed = g[attrs(sar.Spec.ResourceAttributes)]
			return nil
		},
	}).Build()
	return &Validator{Client: c, Reader: c}, sent
}

func dataSource(ns, name string, src cdiv1.DataSourceSource) *cdiv1.DataSource {
	return &cdiv1.DataSource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: cdiv1.DataSourceSpec{Source: src}}
}

func pvcIn(ns, name string) cdiv1.DataSourceSource {
	return cdiv1.DataSourceSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: ns, Name: name}}
}

const notPermitted = "User alice has insufficient permissions in clone source namespace src"

var permissionDenied = invalidAt("spec.source.PVC.namespace", notPermitted)

func TestCloneNeedsPermissionInTheSourceNamespaceAsCDIAsks(t *testing.T) {
	snapshot := source(cdiv1.DataVolumeSource{Snapshot: &cdiv1.DataVolumeSourceSnapshot{Namespace: "src", Name: "snap"}})
	cases := []struct {
		name  string
		g     grants
		edit  func(*cdiv1.DataVolume)
		want  want
		asked reviews
	}{
		{"pvc, no permission", nil, func(dv *cdiv1.DataVolume) { pvcSource(dv, "src", "golden") }, permissionDenied,
			reviews{"create datavolumes/source src", "create pods src"}},
		{"pvc, may create datavolumes/source", grants{"create datavolumes/source src": true},
			func(dv *cdiv1.DataVolume) { pvcSource(dv, "src", "golden") }, allowed, reviews{"create datavolumes/source src"}},
		{"pvc, may create pods", grants{"create pods src": true},
			func(dv *cdiv1.DataVolume) { pvcSource(dv, "src", "golden") }, allowed, reviews{"create datavolumes/source src", "create pods src"}},
		{"pvc in the same namespace", nil, func(dv *cdiv1.DataVolume) { pvcSource(dv, "ns", "golden") }, allowed, nil},
		{"pvc in a missing namespace", nil, func(dv *cdiv1.DataVolume) { pvcSource(dv, "gone", "golden") },
			badRequest(`namespaces "gone" not found`), nil},
		{"snapshot, pods but not pvcs", grants{"create pods src": true}, snapshot, permissionDenied,
			reviews{"create datavolumes/source src", "create pods src", "create pvcs src"}},
		{"snapshot, permitted, is refused here", grants{"create datavolumes/source src": true}, snapshot,
			invalidAt("spec.source", unsupportedSource), reviews{"create datavolumes/source src"}},
		{"import", nil, nil, allowed, nil},
		{"invalid import is the validator's", nil, httpURL(""), invalidAt("spec.source.HTTP.url", "spec.source source URL is empty"), nil},
	}
	for _, c := range cases {
		v, sent := apiValidator(t, c.g)
		resp := v.Handle(context.Background(), request(t, admissionv1.Create, newDV(c.edit), nil))
		requireResponse(t, c.want, resp, c.name)
		require.Equal(t, c.asked, *sent, c.name)
	}
}

func TestSourceRefIsAuthorizedAgainstWhatItsDataSourcePointsAt(t *testing.T) {
	ref := func(ns string) func(*cdiv1.DataVolume) {
		return func(dv *cdiv1.DataVolume) {
			sourceRef(dv, "golden")
			dv.Spec.Storage.Resources.Requests = nil
			if ns != "" {
				dv.Spec.SourceRef.Namespace = ptr.To(ns)
			}
		}
	}
	chained := dataSource("ns", "golden", cdiv1.DataSourceSource{DataSource: &cdiv1.DataSourceRefSourceDataSource{Name: "other"}})
	chained.Status.Source = pvcIn("src", "disk")
	prePopulated := func(dv *cdiv1.DataVolume) {
		ref("")(dv)
		dv.Annotations = map[string]string{cdiv1.AnnPrePopulated: "true"}
	}
	cases := []struct {
		name string
		g    grants
		ds   *cdiv1.DataSource
		edit func(*cdiv1.DataVolume)
		want want
	}{
		{"missing DataSource", nil, nil, ref(""), badRequest(`datasources.cdi.kubevirt.io "golden" not found`)},
		{"missing DataSource, pre-populated", nil, nil, prePopulated, allowed},
		{"DataSource elsewhere, no permission", nil, dataSource("src", "golden", pvcIn("src", "disk")), ref("src"), permissionDenied},
		{"DataSource elsewhere, permitted", grants{"create pods src": true}, dataSource("src", "golden", pvcIn("src", "disk")), ref("src"), allowed},
		{"DataSource here, claim elsewhere", nil, dataSource("ns", "golden", pvcIn("src", "disk")), ref(""), permissionDenied},
		{"DataSource here, claim here", nil, dataSource("ns", "golden", pvcIn("ns", "disk")), ref(""), allowed},
		{"DataSource naming a DataSource goes by its status", nil, chained, ref(""), permissionDenied},
		{"DataSource with no source yet", nil, dataSource("ns", "golden", cdiv1.DataSourceSource{}), ref(""), allowed},
	}
	for _, c := range cases {
		var objs []client.Object
		if c.ds != nil {
			objs = append(objs, c.ds)
		}
		v, _ := apiValidator(t, c.g, objs...)
		resp := v.Handle(context.Background(), request(t, admissionv1.Create, newDV(c.edit), nil))
		requireResponse(t, c.want, resp, c.name)
	}
}

func TestUpdatesAreAuthorizedTooUnlessTheDataVolumeIsGoing(t *testing.T) {
	clone := newDV(func(dv *cdiv1.DataVolume) { pvcSource(dv, "src", "golden") })
	labelled := clone.DeepCopy()
	labelled.Labels = map[string]string{"a": "b"}
	v, _ := apiValidator(t, nil)
	requireResponse(t, permissionDenied, v.Handle(context.Background(), request(t, admissionv1.Update, labelled, clone)), "unauthorized update")

	v, _ = apiValidator(t, grants{"create datavolumes/source src": true})
	requireResponse(t, allowed, v.Handle(context.Background(), request(t, admissionv1.Update, labelled, clone)), "authorized update")

	v, sent := apiValidator(t, nil)
	going := labelled.DeepCopy()
	going.DeletionTimestamp, going.Finalizers = ptr.To(metav1.Now()), []string{Finalizer}
	requireResponse(t, allowed, v.Handle(context.Background(), request(t, admissionv1.Update, going, clone)), "deleting")
	require.Empty(t, *sent)
}

func TestAFailedReviewIsABadRequest(t *testing.T) {
	v, _ := apiValidator(t, nil)
	req := request(t, admissionv1.Create, newDV(func(dv *cdiv1.DataVolume) { pvcSource(dv, "src", "golden") }), nil)
	req.UserInfo.Username = "broken"
	requireResponse(t, badRequest("subjectaccessreviews are down"), v.Handle(context.Background(), req), "review failed")
}
