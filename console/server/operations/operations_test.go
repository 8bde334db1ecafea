package operations

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/session"
	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/virt"
)

const (
	running   = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	completed = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
)

func TestOwnersAreReadFromEachWorkflowsInput(t *testing.T) {
	dv := func(ns, name string) *Owner { return owned("DataVolume", ns, name) }
	cases := []struct {
		typ   string
		input any
		want  *Owner
	}{
		{cdi.ImportWorkflowName, cdi.ImportInput{DataVolume: "vms/disk", Request: cdi.ImportRequest{Claim: "disk"}}, dv("vms", "disk")},
		{cdi.ImportWorkflowName, cdi.ImportInput{DataVolume: "vms/claim", Request: cdi.ImportRequest{Claim: "prime-1234"}},
			owned("PersistentVolumeClaim", "vms", "claim")},
		{cdi.UploadWorkflowName, cdi.ImportInput{DataVolume: "vms/up", Request: cdi.ImportRequest{Claim: "up"}}, dv("vms", "up")},
		{cdi.CloneWorkflowName, cdi.CloneInput{DataVolume: "vms/copy"}, dv("vms", "copy")},
		{cdi.PollCronWorkflowName, cdi.PollCronInput{Namespace: "golden", Name: "fedora", UID: "u"}, owned("DataImportCron", "golden", "fedora")},
		{hco.InstallWorkflowName, hco.InstallInput{HyperConverged: hco.HyperConvergedRef{Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged"}},
			owned("HyperConverged", "kubevirt-hyperconverged", "kubevirt-hyperconverged")},
		{hco.UninstallWorkflowName, hco.UninstallInput{HyperConverged: hco.HyperConvergedRef{Namespace: "hc", Name: "x"}}, owned("HyperConverged", "hc", "x")},
		{ssp.RunTektonTaskWorkflowName, ssp.TaskRequest{Task: "cleanup-vm", Namespace: "pipelines"}, owned("CustomRun", "pipelines", "")},
		{ssp.RunTemplatePipelineWorkflowName, ssp.TemplatePipelineInput{Namespace: "pipelines"}, owned("CustomRun", "pipelines", "")},
		{virt.MigrateWorkflowName, virt.MigrateInput{Migration: virt.Ref{Namespace: "vms", Name: "kubevirt-migrate-vm-x2z9k", UID: "u"},
			VMI: virt.Ref{Namespace: "vms", Name: "vm", UID: "v"}}, owned("VirtualMachineInstanceMigration", "vms", "kubevirt-migrate-vm-x2z9k")},
		{"virt.SomethingNew", map[string]string{"namespace": "x"}, nil},
	}
	for _, c := range cases {
		p, err := converter.GetDefaultDataConverter().ToPayload(c.input)
		require.NoError(t, err)
		got, err := ownerOf(c.typ, p)
		require.NoError(t, err, c.typ)
		assert.Equal(t, c.want, got, c.typ)
	}
	assert.Equal(t, "cdi.kubevirt.io", dv("a", "b").Group)
	assert.Equal(t, "datavolumes", dv("a", "b").Resource)
	vmim := owned("VirtualMachineInstanceMigration", "a", "b")
	assert.Equal(t, []string{"kubevirt.io", "virtualmachineinstancemigrations"}, []string{vmim.Group, vmim.Resource},
		"whoever may delete the VMIM may cancel its migration, as deleting it does")
	assert.Equal(t, []string{virt.MigrateWorkflowName}, typesOf("VirtualMachineInstanceMigration"))
}

// world: alice may get and delete DataVolumes in "mine", get the one
// DataVolume theirs/shared by name, and nothing else.
func world(t *testing.T) (*fakeTemporal, *rules, *Service) {
	ft := &fakeTemporal{}
	ft.add(t, "cdi-import-a", cdi.ImportWorkflowName, running, cdi.ImportInput{DataVolume: "mine/a", Request: cdi.ImportRequest{Claim: "a"}},
		cdi.ImportProgress{Step: cdi.StepImporting})
	ft.add(t, "cdi-clone-shared", cdi.CloneWorkflowName, running, cdi.CloneInput{DataVolume: "theirs/shared"}, nil)
	ft.add(t, "cdi-import-secret", cdi.ImportWorkflowName, completed, cdi.ImportInput{DataVolume: "theirs/secret"}, nil)
	ft.add(t, "hco-install-1", hco.InstallWorkflowName, completed, hco.InstallInput{HyperConverged: hco.HyperConvergedRef{Namespace: "hc", Name: "hc"}}, nil)
	ft.add(t, "mystery-1", "virt.SomethingNew", running, map[string]string{}, nil)
	r := &rules{allow: func(c kubeapi.Check) bool {
		if c.Resource != "datavolumes" {
			return false
		}
		return c.Namespace == "mine" || (c.Verb == "get" && c.Namespace == "theirs" && c.Name == "shared")
	}}
	return ft, r, &Service{Temporal: ft, Namespace: "virtflow", UI: "http://ui.example/", Access: r}
}

func ids(ops []Operation) []string {
	var out []string
	for _, o := range ops {
		out = append(out, o.ID)
	}
	return out
}

func TestListShowsWhatTheUserMayGet(t *testing.T) {
	ft, _, s := world(t)
	ops, err := s.List(context.Background(), "alice", Filter{})
	require.NoError(t, err)
	require.Equal(t, []string{"cdi-clone-shared", "cdi-import-a"}, ids(ops))

	a := ops[1]
	assert.Equal(t, "Running", a.Status)
	assert.Equal(t, cdi.ImportWorkflowName, a.Type)
	assert.Equal(t, "run-cdi-import-a", a.RunID)
	assert.JSONEq(t, `{"step":"Importing"}`, string(a.Progress))
	assert.Equal(t, owned("DataVolume", "mine", "a"), a.Owner)
	assert.Equal(t, "http://ui.example/namespaces/virtflow/workflows/cdi-import-a/run-cdi-import-a/history", a.TemporalUI)
	assert.True(t, a.Cancellable)
	assert.Nil(t, a.CloseTime)
	assert.False(t, ops[0].Cancellable, "alice may get theirs/shared but not delete it")

	_, err = s.List(context.Background(), "alice", Filter{})
	require.NoError(t, err)
	assert.Equal(t, 5, ft.histories, "each run's input is read once")
}

func TestAnOperationTheConsoleCannotAttributeIsForAdministrators(t *testing.T) {
	_, r, s := world(t)
	r.allow = func(kubeapi.Check) bool { return true } // a cluster-admin's */*
	ops, err := s.List(context.Background(), "admin", Filter{})
	require.NoError(t, err)
	assert.Len(t, ops, 5)
	assert.Equal(t, "mystery-1", ops[0].ID)
	assert.Nil(t, ops[0].Owner)
	assert.True(t, ops[0].Cancellable)
	assert.Contains(t, r.asked, kubeapi.Check{Verb: "get", Group: "*", Resource: "*"})
}

func TestFiltersNarrowByOwner(t *testing.T) {
	ft, _, s := world(t)
	ops, err := s.List(context.Background(), "alice", Filter{Kind: "DataVolume", Namespace: "mine"})
	require.NoError(t, err)
	assert.Equal(t, []string{"cdi-import-a"}, ids(ops))
	assert.Equal(t, "WorkflowType IN ('cdi.CloneDataVolume', 'cdi.ImportDataVolume', 'cdi.UploadDataVolume')", ft.queries[len(ft.queries)-1])

	ops, err = s.List(context.Background(), "alice", Filter{Name: "shared"})
	require.NoError(t, err)
	assert.Equal(t, []string{"cdi-clone-shared"}, ids(ops))

	before := len(ft.queries)
	ops, err = s.List(context.Background(), "alice", Filter{Kind: "VirtualMachine"})
	require.NoError(t, err)
	assert.Empty(t, ops)
	assert.NotNil(t, ops, "an empty list, not null")
	assert.Len(t, ft.queries, before, "no workflow belongs to that kind: Temporal is not asked")

	ops, err = s.List(context.Background(), "alice", Filter{Limit: 1})
	require.NoError(t, err)
	assert.Len(t, ops, 1)
}

func TestANamespaceIsAskedAboutOnce(t *testing.T) {
	ft, r, s := world(t)
	ft.add(t, "cdi-import-b", cdi.ImportWorkflowName, running, cdi.ImportInput{DataVolume: "mine/b"}, nil)
	_, err := s.List(context.Background(), "alice", Filter{Namespace: "mine"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []kubeapi.Check{
		{Verb: "get", Group: "cdi.kubevirt.io", Resource: "datavolumes", Namespace: "mine"},
		{Verb: "delete", Group: "cdi.kubevirt.io", Resource: "datavolumes", Namespace: "mine"},
	}, r.asked)
}

func cancel(t *testing.T, s *Service, id string) *httptest.ResponseRecorder {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /console/operations/{id}/cancel", s.ServeCancel)
	req := httptest.NewRequest(http.MethodPost, "/console/operations/"+id+"/cancel", nil)
	req = req.WithContext(session.WithToken(req.Context(), "alice"))
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	return w
}

func TestCancelNeedsDeleteOnTheOwner(t *testing.T) {
	ft, _, s := world(t)
	w := cancel(t, s, "cdi-import-a")
	assert.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
	assert.Equal(t, []string{"cdi-import-a"}, ft.cancelled)

	w = cancel(t, s, "cdi-clone-shared")
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Contains(t, w.Body.String(), "needs permission to delete DataVolume theirs/shared")

	w = cancel(t, s, "cdi-import-secret")
	assert.Equal(t, http.StatusNotFound, w.Code, "an operation alice may not see is not hers to learn of")
	w = cancel(t, s, "no-such-workflow")
	assert.Equal(t, http.StatusNotFound, w.Code)

	ft.setStatus("cdi-import-a", completed)
	w = cancel(t, s, "cdi-import-a")
	assert.Equal(t, http.StatusConflict, w.Code)
	assert.Contains(t, w.Body.String(), "Completed")
	assert.Equal(t, []string{"cdi-import-a"}, ft.cancelled)
}

func TestAnExpiredTokenIsA401(t *testing.T) {
	_, r, s := world(t)
	r.err = kubeapi.ErrUnauthorized
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/console/operations", nil)
	s.ServeList(w, req.WithContext(session.WithToken(req.Context(), "old")))
	assert.Equal(t, http.StatusUnauthorized, w.Code)
}
