package virt

import (
	"context"

	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
)

// NodeActivities are a migration's node steps, which virt-handler's node
// worker runs on the source's and the target's nodes.
type NodeActivities interface {
	// PrepareTarget hands the VMI to the target launcher as an incoming
	// migration and opens the streams' ports on this node.
	PrepareTarget(ctx context.Context, req NodeRequest) (TargetEndpoint, error)
	// MigrateDomain runs the copy from this (the source) node to its end.
	MigrateDomain(ctx context.Context, req NodeRequest) error
	// ReadCopy says what this node runs of the VMI now.
	ReadCopy(ctx context.Context, req NodeRequest) (Copy, error)
	// AbortMigration cancels the copy running from this node.
	AbortMigration(ctx context.Context, req NodeRequest) error
	// ResumeSource resumes the source's guest left paused by a copy.
	ResumeSource(ctx context.Context, req NodeRequest) error
}

// RegisterNodeActivities binds each node step to its implementation,
// through the typed descriptors so that a signature that drifted from the
// workflow's calls does not compile.
func RegisterNodeActivities(r registry.Activities, a NodeActivities) {
	typed.RegisterActivities(r,
		PrepareTarget.Bind(a.PrepareTarget),
		MigrateDomain.Bind(a.MigrateDomain),
		ReadCopy.Bind(a.ReadCopy),
		AbortMigration.Bind(a.AbortMigration),
		ResumeSource.Bind(a.ResumeSource),
	)
}

// ControlActivities are a migration's cluster-side steps, which the
// control worker runs.
type ControlActivities interface {
	// PlanMigration checks the VMI can move and records the start.
	PlanMigration(ctx context.Context, in MigrateInput) (MigrationPlan, error)
	// CreateTargetPod creates (or finds) the target launcher pod.
	CreateTargetPod(ctx context.Context, req NodeRequest) (string, error)
	// AwaitTargetPod waits for the target pod to run; it returns its node.
	AwaitTargetPod(ctx context.Context, req NodeRequest) (string, error)
	// HandOver makes the target the VMI's node and removes the source.
	HandOver(ctx context.Context, req NodeRequest) error
	// RemoveTarget removes the target pod of a migration that did not happen.
	RemoveTarget(ctx context.Context, req NodeRequest) error
	// RecordMigrationEnd writes how the migration ended on the VMI.
	RecordMigrationEnd(ctx context.Context, req NodeRequest, res MigrateResult) error
}

// RegisterControlActivities binds each control step to its
// implementation.
func RegisterControlActivities(r registry.Activities, a ControlActivities) {
	typed.RegisterActivities(r,
		PlanMigration.Bind(a.PlanMigration),
		CreateTargetPod.Bind(a.CreateTargetPod),
		AwaitTargetPod.Bind(a.AwaitTargetPod),
		HandOver.Bind(a.HandOver),
		RemoveTarget.Bind(a.RemoveTarget),
		RecordMigrationEnd.Bind(a.RecordMigrationEnd),
	)
}
