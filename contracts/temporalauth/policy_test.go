package temporalauth

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/virt"
)

func TestTheNamesMatchTheContractsTheWorkersAndOperatorsUse(t *testing.T) {
	require.Equal(t, ssp.TaskQueue, ControlTaskQueue)
	node := mustGrant(t, NodeWorker)
	for _, name := range []string{cdi.ImportDiskName, cdi.CleanupDiskName, cdi.ReceiveUploadName, cdi.CloneDiskName,
		virt.PrepareTargetName, virt.MigrateDomainName, virt.ReadCopyName, virt.AbortMigrationName, virt.ResumeSourceName} {
		require.Truef(t, node.AnswersActivity(name), "%s is a node activity", name)
	}
	for _, name := range []string{virt.PlanMigrationName, virt.CreateTargetPodName, virt.HandOverName, virt.RemoveTargetName, "ssp.RunTask"} {
		require.Falsef(t, node.AnswersActivity(name), "%s is the control worker's", name)
	}
	require.True(t, mustGrant(t, NodeWorker).Polls(cdi.NodeTaskQueue("node-1")))
	require.True(t, mustGrant(t, NodeWorker).Signals(cdi.ImportWorkflowID("u")))
	require.True(t, mustGrant(t, NodeWorker).Signals(virt.MigrateWorkflowID("u")), "a copy reports to its migration")
	require.True(t, mustGrant(t, HCOOperator).Starts(hco.InstallWorkflowName, hco.InstallWorkflowID("u"), ControlTaskQueue))
	require.True(t, mustGrant(t, SSPOperator).Starts(ssp.RunTemplatePipelineWorkflowName, ssp.TaskWorkflowID("u"), ControlTaskQueue))
	cdiGrant := mustGrant(t, CDIDeployment)
	require.True(t, cdiGrant.Starts(cdi.CloneWorkflowName, cdi.CloneWorkflowID("u"), ControlTaskQueue))
	require.True(t, cdiGrant.Schedules(cdi.CronScheduleID("u")))
	require.True(t, cdiGrant.Starts(cdi.PollCronWorkflowName, cdi.CronWorkflowID("u")+"-2025-01-01T00:00:00Z", ControlTaskQueue),
		"a schedule's poll workflows are the deployment's own")
}

func mustGrant(t *testing.T, id string) Grant {
	t.Helper()
	g, ok := GrantOf(id)
	require.True(t, ok, id)
	return g
}

func TestEveryInClusterIdentityHasASecretAndAGrant(t *testing.T) {
	seen := map[string]bool{}
	for _, id := range InCluster() {
		name := SecretName(id)
		require.NotEmpty(t, name, id)
		require.False(t, seen[name], "%s shares its Secret", id)
		seen[name] = true
		_, ok := GrantOf(id)
		require.True(t, ok, id)
	}
	require.Empty(t, SecretName(Admin), "the admin's certificate stays on the host")
	require.Len(t, Identities(), len(InCluster())+1)
	_, ok := GrantOf("someone-else")
	require.False(t, ok)
}

func TestGrantsAreNarrow(t *testing.T) {
	hcoGrant := mustGrant(t, HCOOperator)
	require.False(t, hcoGrant.Starts(cdi.ImportWorkflowName, "hco-install-u", ControlTaskQueue), "another domain's type")
	require.False(t, hcoGrant.Starts(hco.InstallWorkflowName, "cdi-import-u", ControlTaskQueue), "another domain's ID")
	require.False(t, hcoGrant.Starts(hco.InstallWorkflowName, "hco-install-u", "virtflow-node-n1"), "another queue")
	require.False(t, hcoGrant.Cancels("cdi-import-u"))
	require.True(t, hcoGrant.Terminates("hco-install-u"))
	require.False(t, hcoGrant.Schedules("hco-cron-u"), "HCO has no schedules")
	require.False(t, hcoGrant.Polls(ControlTaskQueue))

	node := mustGrant(t, NodeWorker)
	require.False(t, node.Polls(ControlTaskQueue))
	require.False(t, node.Polls("virtflow-nod"))
	require.False(t, node.Signals("hco-install-u"))
	require.False(t, node.Signals("virt-evacuate-u"), "of KubeVirt's workflows, only migrations")
	require.False(t, node.Cancels(virt.MigrateWorkflowID("u")), "a node reports to a migration, never stops it")
	require.False(t, node.WorkflowTasks)

	console := mustGrant(t, Console)
	require.True(t, console.Cancels("ssp-task-u"))
	require.False(t, console.Signals("ssp-task-u"))
	require.False(t, console.Terminates("ssp-task-u"))
	require.False(t, console.Starts("ssp.RunTektonTask", "ssp-task-u", ControlTaskQueue))
	require.False(t, console.Cancels(""), "an empty ID names no workflow")
}
