package virtapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

const migratePath = "namespaces/ns/virtualmachines/vm/migrate"

func aVM() *kubevirtv1.VirtualMachine {
	return &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}}
}

func vmiInPhase(phase kubevirtv1.VirtualMachineInstancePhase) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: phase}}
}

// migrationAPI serves the subresources over objs, creates going through
// create; it returns the client to read what was created.
func migrationAPI(t *testing.T, create func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error, objs ...client.Object) (*Server, client.Client) {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	b := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...)
	if create != nil {
		b = b.WithInterceptorFuncs(interceptor.Funcs{Create: create})
	}
	c := b.Build()
	return &Server{Actions: &Actions{Client: c}, Reader: c}, c
}

func serve(t *testing.T, s *Server) *httptest.Server {
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv
}

func migrations(t *testing.T, c client.Client) []kubevirtv1.VirtualMachineInstanceMigration {
	t.Helper()
	list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	require.NoError(t, c.List(context.Background(), list, client.InNamespace("ns")))
	return list.Items
}

func TestMigrateCreatesAMigrationOfTheVMsInstance(t *testing.T) {
	s, c := migrationAPI(t, nil, aVM(), vmiInPhase(kubevirtv1.Running))
	srv := serve(t, s)
	code, body := call(t, srv, http.MethodPut, migratePath, `{"addedNodeSelector":{"zone":"b"}}`)
	require.Equal(t, http.StatusAccepted, code, body)
	require.Empty(t, body)
	migs := migrations(t, c)
	require.Len(t, migs, 1)
	require.Equal(t, "vm", migs[0].Spec.VMIName)
	require.Equal(t, map[string]string{"zone": "b"}, migs[0].Spec.AddedNodeSelector)
	require.Regexp(t, "^kubevirt-migrate-vm-.+", migs[0].Name)
}

func TestMigrateWithoutABodyOrWithDryRun(t *testing.T) {
	s, c := migrationAPI(t, nil, aVM(), vmiInPhase(kubevirtv1.Running))
	srv := serve(t, s)
	code, body := call(t, srv, http.MethodPut, migratePath, `{"dryRun":["All"]}`)
	require.Equal(t, http.StatusAccepted, code, body)
	require.Empty(t, migrations(t, c), "a dry run creates nothing")

	code, body = call(t, srv, http.MethodPut, migratePath, "")
	require.Equal(t, http.StatusAccepted, code, body)
	require.Len(t, migrations(t, c), 1)

	code, body = call(t, srv, http.MethodPut, migratePath, "{not json")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, statusMessage(t, body), "Can not unmarshal Request body to struct, error: ")
}

func TestMigrateRefusalsInUpstreamsWords(t *testing.T) {
	for name, c := range map[string]struct {
		objs []client.Object
		code int
		msg  string
	}{
		"no VM":       {nil, http.StatusNotFound, `virtualmachine.kubevirt.io "vm" not found`},
		"no VMI":      {[]client.Object{aVM()}, http.StatusNotFound, `virtualmachineinstance.kubevirt.io "vm" not found`},
		"VMI pending": {[]client.Object{aVM(), vmiInPhase(kubevirtv1.Scheduled)}, http.StatusConflict, `Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm": VM is not running`},
	} {
		s, cl := migrationAPI(t, nil, c.objs...)
		code, body := call(t, serve(t, s), http.MethodPut, migratePath, "{}")
		require.Equal(t, c.code, code, name)
		require.Equal(t, c.msg, statusMessage(t, body), name)
		require.Empty(t, migrations(t, cl), name)
	}
}

// A webhook's refusal reaches the user with its text, in a 500 as
// upstream's virt-api wraps every create error.
func TestMigrateWrapsTheWebhooksRefusal(t *testing.T) {
	refused := func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
		return apierrors.NewBadRequest(`admission webhook "migration-create-validator.kubevirt.io" denied the request: in-flight migration detected.`)
	}
	s, _ := migrationAPI(t, refused, aVM(), vmiInPhase(kubevirtv1.Running))
	code, body := call(t, serve(t, s), http.MethodPut, migratePath, "")
	require.Equal(t, http.StatusInternalServerError, code)
	require.Equal(t, `Internal error occurred: admission webhook "migration-create-validator.kubevirt.io" denied the request: in-flight migration detected.`,
		statusMessage(t, body))
}
