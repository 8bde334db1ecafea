package hyperconverged

import (
	"context"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

func TestNamespaceMutator(t *testing.T) {
	theHC := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: hcov1beta1.HyperConvergedName}}
	otherHC := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "other"}}
	ns := func(name string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	failing := interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
		return apierrors.NewServiceUnavailable("etcd is down")
	}}
	cases := []struct {
		name  string
		objs  []client.Object
		funcs interceptor.Funcs
		req   admission.Request
		want  want
	}{
		{name: "HyperConverged present", objs: []client.Object{theHC}, req: request(t, admissionv1.Delete, nil, ns(testNS)),
			want: forbidden("HyperConverged CR is still present, please remove it before deleting the containing hcoNamespace")},
		{name: "HyperConverged gone", req: request(t, admissionv1.Delete, nil, ns(testNS)),
			want: want{allowed: true, code: http.StatusOK, message: "the hcoNamespace doesn't contain HyperConverged CR, admitting its deletion"}},
		{name: "only a HyperConverged HCO ignores", objs: []client.Object{otherHC}, req: request(t, admissionv1.Delete, nil, ns(testNS)),
			want: want{allowed: true, code: http.StatusOK, message: "the hcoNamespace doesn't contain HyperConverged CR, admitting its deletion"}},
		{name: "another namespace", objs: []client.Object{theHC}, req: request(t, admissionv1.Delete, nil, ns("default")),
			want: want{allowed: true, code: http.StatusOK, message: "the hcoNamespace doesn't contain HyperConverged CR, admitting its deletion"}},
		{name: "not a deletion", req: request(t, admissionv1.Update, ns(testNS), ns(testNS)),
			want: want{allowed: true, code: http.StatusOK, message: "ignoring other operations"}},
		{name: "no namespace in the request", req: request(t, admissionv1.Delete, nil, nil),
			want: want{code: http.StatusBadRequest, message: "there is no content to decode"}},
		{name: "the HyperConverged cannot be read", funcs: failing, req: request(t, admissionv1.Delete, nil, ns(testNS)),
			want: want{code: http.StatusInternalServerError, message: "etcd is down"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scheme := testScheme(t)
			r := fake.NewClientBuilder().WithScheme(scheme).WithObjects(c.objs...).WithInterceptorFuncs(c.funcs).Build()
			m := &NamespaceMutator{Reader: r, Namespace: testNS, Decoder: admission.NewDecoder(scheme)}
			requireOutcome(t, c.want, m.Handle(context.Background(), c.req))
		})
	}
}
