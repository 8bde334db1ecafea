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
