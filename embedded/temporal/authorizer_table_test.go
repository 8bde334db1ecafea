package temporal

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/server/common/authorization"

	"github.com/virtflow/virtflow/contracts/temporalauth"
	"github.com/virtflow/virtflow/worker"
)

const nodeQueue = "virtflow-node-n1"

// TestEachIdentityMakesOnlyItsOwnCalls is the policy as a table: for each
// identity, calls it may make and calls it may not.
func TestEachIdentityMakesOnlyItsOwnCalls(t *testing.T) {
	reads := []call{describe, history, list, describeNS, systemInfo, health, listSearchAttr}
	table := []struct {
		identity         string
		allowed, refused []call
	}{
		{temporalauth.Admin, []call{startCall("test.Anything", "x", "q"), updateNS, deleteNS, adminCall, completeWFTask}, nil},
		{systemIdentity, []call{startCall("cdi.PollDataImportCron", "cdi-cronpoll-u", control), adminCall}, nil},
		{temporalauth.ControlWorker,
			append([]call{poll(control), pollSticky(control), pollWorkflows(control), completeWFTask, completeActivity(t, "hco.EnsureComponent"), heartbeatByID, signal("ssp-task-u")}, reads...),
			[]call{poll(nodeQueue), pollSticky(nodeQueue), startCall("cdi.ImportDataVolume", "cdi-import-u", control), terminate("cdi-import-u"), cancel("cdi-import-u"),
				updateNS, deleteNS, adminCall, createSchedule("cdi-cron-u", "cdi.PollDataImportCron", "cdi-cronpoll-u")}},
		{temporalauth.NodeWorker,
			append([]call{poll(nodeQueue), completeActivity(t, "storage.ImportDisk"), signal("cdi-import-u"), signal("virt-migrate-u")}, reads...),
			[]call{poll(control), pollSticky(control), pollSticky(nodeQueue), pollWorkflows(nodeQueue), poll("virtflow-nodes"), poll("/_sys/virtflow-control/1"), completeActivity(t, "ssp.RunTaskStep"), completeActivity(t, ""), completeWFTask, heartbeatByID,
				signal("hco-install-u"), signal("ssp-task-u"), signal("virt-evacuate-u"), cancel("virt-migrate-u"), startCall("cdi.ImportDataVolume", "cdi-import-u", control), cancel("cdi-import-u")}},
		{temporalauth.HCOOperator,
			append([]call{startCall("hco.InstallHyperConverged", "hco-install-u", control), signal("hco-install-u"), cancel("hco-install-u"), terminate("hco-uninstall-u")}, reads...),
			[]call{startCall("cdi.ImportDataVolume", "cdi-import-u", control), startCall("hco.InstallHyperConverged", "cdi-import-u", control),
				startCall("hco.InstallHyperConverged", "hco-install-u", nodeQueue), eagerStart, cancel("cdi-import-u"), poll(control), completeWFTask,
				createSchedule("cdi-cron-u", "cdi.PollDataImportCron", "cdi-cronpoll-u")}},
		{temporalauth.CDIDeployment,
			append([]call{startCall("cdi.ImportDataVolume", "cdi-import-u", control), cancel("cdi-cronpoll-u-2025"), createSchedule("cdi-cron-u", "cdi.PollDataImportCron", "cdi-cronpoll-u")}, reads...),
			[]call{createSchedule("cdi-cron-u", "hco.InstallHyperConverged", "hco-install-u"), createSchedule("cdi-cron-u", "cdi.PollDataImportCron", "ssp-task-u"),
				createSchedule("hco-cron-u", "cdi.PollDataImportCron", "cdi-cronpoll-u"), startCall("ssp.RunTektonTask", "ssp-task-u", control), terminate("hco-install-u")}},
		{temporalauth.SSPOperator,
			append([]call{startCall("ssp.RunTektonTask", "ssp-task-u", control), startCall("ssp.RunTemplatePipeline", "ssp-task-v", control), cancel("ssp-task-u")}, reads...),
			[]call{startCall("cdi.CloneDataVolume", "cdi-clone-u", control), startCall("ssp.RunTektonTask", "cdi-clone-u", control), cancel("cdi-clone-u")}},
		{temporalauth.Console,
			append([]call{cancel("hco-install-u"), cancel("cdi-import-u")}, reads...),
			[]call{startCall("hco.InstallHyperConverged", "hco-install-u", control), terminate("hco-install-u"), signal("cdi-import-u"), poll(control), updateNS}},
		{temporalauth.UploadProxy, reads, []call{cancel("cdi-upload-u"), signal("cdi-upload-u"), startCall("cdi.UploadDataVolume", "cdi-upload-u", control)}},
		{webUIIdentity, reads, []call{cancel("hco-install-u"), terminate("hco-install-u"), startCall("test.Anything", "x", control)}},
		{"intruder", nil, []call{health, systemInfo, describe}},
	}
	for _, row := range table {
		for _, c := range row.allowed {
			require.Truef(t, decideAs(row.identity, c), "%s may %s", row.identity, c.name)
		}
		for _, c := range row.refused {
			require.Falsef(t, decideAs(row.identity, c), "%s may not %s", row.identity, c.name)
		}
	}
}

func TestOnlyTheAdminActsOutsideTheServersNamespaces(t *testing.T) {
	other := wfCall("DescribeWorkflowExecution", &workflowservice.DescribeWorkflowExecutionRequest{Namespace: "temporal-system", Execution: exec("x")})
	require.False(t, decideAs(temporalauth.Console, other))
	require.True(t, decideAs(temporalauth.Admin, other))
	require.Equal(t, worker.DefaultNamespace, temporalauth.Namespace)
	require.Equal(t, worker.ControlTaskQueue, temporalauth.ControlTaskQueue)
}

func TestTheClaimMapperNeedsACertificateSubject(t *testing.T) {
	_, err := claimMapper{}.GetClaims(&authorization.AuthInfo{AuthToken: "Bearer x"})
	require.Error(t, err, "a bearer token alone is no identity")
	r, err := newAuthorizer([]string{ns}, nil).Authorize(t.Context(), nil, &authorization.CallTarget{APIName: systemInfo.method})
	require.NoError(t, err)
	require.Equal(t, authorization.DecisionDeny, r.Decision, "no claims, no call")
}
