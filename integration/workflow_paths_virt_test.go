//go:build integration

package integration

import (
	"context"
	"sync/atomic"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"

	"github.com/virtflow/virtflow/contracts/typed"
	virtc "github.com/virtflow/virtflow/contracts/virt"
)

// virtPathRuns are a live migration's runs with scripted steps, both nodes
// on the run's node queue: moved (handed over), failed for good (the copy
// failed, and the paused source could not be resumed) and cancelled during
// the copy (aborted, the target removed, the end recorded). The _v2
// histories are recorded with the versioned cancellation and progress
// paths, the _v3 ones with Running published by the source's first
// report; the earlier recordings stay beside them and replay too.
func virtPathRuns() []pathRun {
	const dir = "workflows/virt/testdata/"
	in := func(string) any {
		return virtc.MigrateInput{Migration: virtc.Ref{Namespace: "vms", Name: "mig", UID: "m-paths"}, VMI: virtc.Ref{Namespace: "vms", Name: "vm", UID: "v-paths"}}
	}
	// The control steps run on the run's queue, which names its node.
	until := func() []typed.ActivityBinding {
		return []typed.ActivityBinding{
			virtc.PlanMigration.Bind(func(ctx context.Context, _ virtc.MigrateInput) (virtc.MigrationPlan, error) {
				return virtc.MigrationPlan{Source: virtc.Side{Node: activity.GetInfo(ctx).TaskQueue, Pod: "virt-launcher-vm-aaaaa"}}, nil
			}),
			virtc.CreateTargetPod.Bind(func(context.Context, virtc.NodeRequest) (string, error) { return "virt-launcher-vm-bbbbb", nil }),
			virtc.AwaitTargetPod.Bind(func(ctx context.Context, _ virtc.NodeRequest) (string, error) {
				return activity.GetInfo(ctx).TaskQueue, nil
			}),
			virtc.PrepareTarget.Bind(func(context.Context, virtc.NodeRequest) (virtc.TargetEndpoint, error) {
				return virtc.TargetEndpoint{Address: "10.250.0.12", Ports: map[string]int{"40001": 0, "40002": 49152}}, nil
			}),
		}
	}
	// Both nodes are the run's queue: the first read of a pair is the
	// source's, the second the target's.
	copies := func(source, target virtc.Copy) typed.ActivityBinding {
		var n atomic.Int32
		return virtc.ReadCopy.Bind(func(context.Context, virtc.NodeRequest) (virtc.Copy, error) {
			if n.Add(1)%2 == 1 {
				return source, nil
			}
			return target, nil
		})
	}
	ok := func(context.Context, virtc.NodeRequest) error { return nil }
	// The copy reports once, as a source does when libvirt's job starts:
	// the migration is Running from then on.
	reportOnce := func(ctx context.Context, _ virtc.NodeRequest) error {
		return virtc.ProgressSignal.SendFromActivity(ctx, env.tc, virtc.CopyProgress{DataTotal: 1 << 30, DataRemaining: 1 << 30, Iteration: 1})
	}
	return []pathRun{
		{file: dir + "migrate_completed_v3.json", workflow: virtc.MigrateWorkflowName, input: in,
			activities: append(until(), virtc.MigrateDomain.Bind(reportOnce), copies(virtc.CopyGone, virtc.CopyRunning), virtc.HandOver.Bind(ok)),
			want:       enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, ran: []string{virtc.HandOverName}},
		{file: dir + "migrate_failed_v3.json", workflow: virtc.MigrateWorkflowName, input: in,
			activities: append(until(),
				virtc.MigrateDomain.Bind(func(context.Context, virtc.NodeRequest) error {
					return nonRetryable("Live migration failed Unable to write to socket: Broken pipe", virtc.ErrTypeMigrationFailed)
				}),
				virtc.AbortMigration.Bind(ok), copies(virtc.CopyPaused, virtc.CopyIncoming),
				virtc.ResumeSource.Bind(func(context.Context, virtc.NodeRequest) error {
					return nonRetryable("the source pod virt-launcher-vm-aaaaa is gone: its guest cannot be resumed", virtc.ErrTypeMigrationFailed)
				})),
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, ran: []string{virtc.AbortMigrationName, virtc.ResumeSourceName}},
		{file: dir + "migrate_cancelled_v3.json", workflow: virtc.MigrateWorkflowName, input: in,
			activities: append(until(),
				virtc.MigrateDomain.Bind(func(ctx context.Context, _ virtc.NodeRequest) error { return untilCancelled(ctx) }),
				virtc.AbortMigration.Bind(ok), copies(virtc.CopyRunning, virtc.CopyIncoming), virtc.RemoveTarget.Bind(ok),
				virtc.RecordMigrationEnd.Bind(func(context.Context, virtc.NodeRequest, virtc.MigrateResult) error { return nil })),
			cancelAt: virtc.MigrateDomainName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED,
			ran: []string{virtc.AbortMigrationName, virtc.RemoveTargetName, virtc.RecordMigrationEndName}},
	}
}
