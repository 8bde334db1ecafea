package virt

import "github.com/virtflow/virtflow/contracts/typed"

// Activity type names. Control steps run on the control worker; node
// steps on the node's worker (cdi.NodeTaskQueue).
const (
	PlanMigrationName      = "virt.PlanMigration"
	CreateTargetPodName    = "virt.CreateTargetPod"
	AwaitTargetPodName     = "virt.AwaitTargetPod"
	PrepareTargetName      = "virt.PrepareMigrationTarget"
	MigrateDomainName      = "virt.MigrateDomain"
	ReadCopyName           = "virt.ReadMigrationCopy"
	AbortMigrationName     = "virt.AbortMigration"
	HandOverName           = "virt.HandOverToTarget"
	RemoveTargetName       = "virt.RemoveMigrationTarget"
	ResumeSourceName       = "virt.ResumeMigrationSource"
	RecordMigrationEndName = "virt.RecordMigrationEnd"
)

// The migration's steps, typed.
var (
	// PlanMigration checks the VMI can move (running, LiveMigratable, no
	// other migration in flight), records migrationState and returns the
	// source and the configuration in effect.
	PlanMigration = typed.Activity[MigrateInput, MigrationPlan]{Name: PlanMigrationName}
	// CreateTargetPod creates the target launcher pod, or finds the one
	// an earlier attempt created; it returns its name.
	CreateTargetPod = typed.Activity[NodeRequest, string]{Name: CreateTargetPodName}
	// AwaitTargetPod waits until the scheduler placed the target pod and
	// it runs; it returns its node, and fails for good with upstream's
	// messages when it stays unschedulable or pending too long.
	AwaitTargetPod = typed.Activity[NodeRequest, string]{Name: AwaitTargetPodName}
	// PrepareTarget (target node) hands the VMI to the target launcher,
	// which waits for its domain, and opens the streams' ports.
	PrepareTarget = typed.Activity[NodeRequest, TargetEndpoint]{Name: PrepareTargetName}
	// MigrateDomain (source node) runs the copy to its end, heartbeating
	// its progress; it is idempotent: a copy that already moved succeeds.
	MigrateDomain = typed.VoidActivity[NodeRequest]{Name: MigrateDomainName}
	// ReadCopy (on the source node, then on the target node) says what
	// that node runs of the VMI now. A node whose agent does not answer
	// is waited for: nothing is decided without both answers.
	ReadCopy = typed.Activity[NodeRequest, Copy]{Name: ReadCopyName}
	// AbortMigration (source node) cancels a running copy.
	AbortMigration = typed.VoidActivity[NodeRequest]{Name: AbortMigrationName}
	// HandOver makes the target the VMI's node (status.nodeName,
	// migrationState completed) and removes the source pod.
	HandOver = typed.VoidActivity[NodeRequest]{Name: HandOverName}
	// RemoveTarget removes the target pod of a migration that did not
	// happen.
	RemoveTarget = typed.VoidActivity[NodeRequest]{Name: RemoveTargetName}
	// ResumeSource (source node) resumes a source left paused by a copy
	// whose target never started.
	ResumeSource = typed.VoidActivity[NodeRequest]{Name: ResumeSourceName}
	// RecordMigrationEnd writes the VMI's migrationState end (failed or
	// aborted, with the reason).
	RecordMigrationEnd = typed.VoidActivity2[NodeRequest, MigrateResult]{Name: RecordMigrationEndName}
)
