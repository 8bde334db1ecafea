package virtctl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// seen is one request the fake API server took.
type seen struct {
	method, path, query string
	body                []byte
}

// migrationAPI answers the migrate subresource with subresource, lists
// migs for the VMI label selector, and deletes with del; it records every
// request.
type migrationAPI struct {
	subresource func(w http.ResponseWriter)
	migs        []kubevirtv1.VirtualMachineInstanceMigration
	del         func(w http.ResponseWriter)
	got         []seen
}

const migrationsURL = "/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstancemigrations"

func (a *migrationAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.got = append(a.got, seen{r.Method, r.URL.Path, r.URL.RawQuery, body})
	switch {
	case r.Method == http.MethodPut && r.URL.Path == "/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm/migrate":
		a.subresource(w)
	case r.Method == http.MethodGet && r.URL.Path == migrationsURL:
		apiObject(w, http.StatusOK, kubevirtv1.VirtualMachineInstanceMigrationList{
			TypeMeta: metav1.TypeMeta{Kind: "VirtualMachineInstanceMigrationList", APIVersion: "kubevirt.io/v1"}, Items: a.migs})
	case r.Method == http.MethodDelete:
		a.del(w)
	default:
		apiStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound)
	}
}

func (a *migrationAPI) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	err := Main(context.Background(), append([]string{"--kubeconfig", writeKubeconfig(t, srv.URL)}, args...), &out)
	return out.String(), err
}

func accepted(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) }

func TestMigrateSendsUpstreamsOptionsAndSaysSo(t *testing.T) {
	api := &migrationAPI{subresource: accepted}
	out, err := api.run(t, "migrate", "vm", "--addedNodeSelector", "zone=b,rack=1", "--addedNodeSelector=disk=ssd")
	require.NoError(t, err)
	require.Equal(t, "VM vm was scheduled to migrate\n", out)
	require.Len(t, api.got, 1)
	var opts kubevirtv1.MigrateOptions
	require.NoError(t, json.Unmarshal(api.got[0].body, &opts))
	require.Equal(t, map[string]string{"zone": "b", "rack": "1", "disk": "ssd"}, opts.AddedNodeSelector)
	require.Empty(t, opts.DryRun)

	api = &migrationAPI{subresource: accepted}
	out, err = api.run(t, "migrate", "--dry-run", "vm")
	require.NoError(t, err)
	require.Equal(t, "Dry Run execution\nVM vm was scheduled to migrate\n", out)
	require.JSONEq(t, `{"dryRun":["All"]}`, string(api.got[0].body))
}

func TestMigrateRefusalKeepsVirtAPIsMessage(t *testing.T) {
	api := &migrationAPI{subresource: func(w http.ResponseWriter) {
		apiObject(w, http.StatusConflict, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Code: http.StatusConflict, Reason: metav1.StatusReasonConflict,
			Message: `Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm": VM is not running`})
	}}
	out, err := api.run(t, "migrate", "vm")
	require.EqualError(t, err, `Error migrating VirtualMachine Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm": VM is not running`)
	require.Empty(t, out)

	_, err = api.run(t, "migrate", "vm", "--addedNodeSelector", "zone")
	require.ErrorContains(t, err, "zone must be formatted as key=value")
}

func vmim(name string, phase kubevirtv1.VirtualMachineInstanceMigrationPhase) kubevirtv1.VirtualMachineInstanceMigration {
	return kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: "vm"}, Status: kubevirtv1.VirtualMachineInstanceMigrationStatus{Phase: phase}}
}

func TestMigrateCancelDeletesTheMigrationInFlight(t *testing.T) {
	deleted := func(w http.ResponseWriter) { apiObject(w, http.StatusOK, metav1.Status{Status: metav1.StatusSuccess}) }
	api := &migrationAPI{del: deleted, migs: []kubevirtv1.VirtualMachineInstanceMigration{
		vmim("done", kubevirtv1.MigrationSucceeded), vmim("failed", kubevirtv1.MigrationFailed), vmim("now", kubevirtv1.MigrationRunning)}}
	out, err := api.run(t, "migrate-cancel", "vm", "--dry-run")
	require.NoError(t, err)
	require.Equal(t, "Dry Run execution\nVM vm was scheduled to migrate-cancel\n", out)
	require.Len(t, api.got, 2)
	require.Equal(t, "labelSelector=kubevirt.io%2Fvmi-name%3D%3Dvm", api.got[0].query)
	require.Equal(t, http.MethodDelete, api.got[1].method)
	require.Equal(t, migrationsURL+"/now", api.got[1].path)
	var opts metav1.DeleteOptions
	require.NoError(t, json.Unmarshal(api.got[1].body, &opts))
	require.Equal(t, []string{metav1.DryRunAll}, opts.DryRun)
}

func TestMigrateCancelErrorsInUpstreamsWords(t *testing.T) {
	api := &migrationAPI{migs: []kubevirtv1.VirtualMachineInstanceMigration{vmim("done", kubevirtv1.MigrationSucceeded)}}
	_, err := api.run(t, "migrate-cancel", "vm")
	require.EqualError(t, err, "Found no migration to cancel for vm")
	require.Len(t, api.got, 1, "nothing to delete")

	api = &migrationAPI{migs: []kubevirtv1.VirtualMachineInstanceMigration{vmim("new", "")},
		del: func(w http.ResponseWriter) { apiStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden) }}
	out, err := api.run(t, "migrate-cancel", "vm")
	require.EqualError(t, err, "Error canceling migration new of a VirtualMachine vm: Forbidden")
	require.Empty(t, out)
}
