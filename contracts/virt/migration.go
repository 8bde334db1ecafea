// Package virt is the contract of KubeVirt's long-running operations:
// a live migration is a workflow per VirtualMachineInstanceMigration whose
// control steps run on the control worker and whose node steps run on the
// source's and the target's node workers.
package virt

import (
	"time"

	"github.com/virtflow/virtflow/contracts/typed"
)

// MigrateWorkflowName is the migration workflow's type, as the Temporal
// Web UI shows it.
const MigrateWorkflowName = "virt.MigrateVirtualMachineInstance"

// MigrateWorkflow moves a running VMI to another node, ending with exactly
// one running copy whatever crashes on the way.
var MigrateWorkflow = typed.Workflow[MigrateInput, MigrateResult]{Name: MigrateWorkflowName}

// MigrateWorkflowIDPrefix begins every migration workflow's ID: the node
// agents, whose copies report to them, may signal these and no others.
const MigrateWorkflowIDPrefix = "virt-migrate-"

// MigrateWorkflowID names a migration's workflow by its VMIM's UID.
func MigrateWorkflowID(migrationUID string) string { return MigrateWorkflowIDPrefix + migrationUID }

// Ref names a namespaced object and pins its UID.
type Ref struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
}

// MigrateInput is one VirtualMachineInstanceMigration.
type MigrateInput struct {
	Migration Ref `json:"migration"`
	VMI       Ref `json:"vmi"`
}

// Phases of a migration, upstream's VMIM phases.
const (
	PhasePending         = "Pending"
	PhaseScheduling      = "Scheduling"
	PhaseScheduled       = "Scheduled"
	PhasePreparingTarget = "PreparingTarget"
	PhaseTargetReady     = "TargetReady"
	PhaseRunning         = "Running"
	PhaseSucceeded       = "Succeeded"
	PhaseFailed          = "Failed"
)

// Side is the node end of a migration.
type Side struct {
	Node string `json:"node"`
	Pod  string `json:"pod"`
}

// MigrationPlan is what the control steps decided: the source, the
// configuration in effect (the cluster's, or the selected policy's).
type MigrationPlan struct {
	Source Side `json:"source"`
	// PolicyName is the MigrationPolicy that applies, if any.
	PolicyName   string `json:"policyName,omitempty"`
	BandwidthMiB uint64 `json:"bandwidthMiB,omitempty"`
	AutoConverge bool   `json:"autoConverge,omitempty"`
	PostCopy     bool   `json:"postCopy,omitempty"`
	// WorkloadDisruption lets a copy past its completion timeout switch to
	// post-copy (with PostCopy) or pause the guest, rather than abort.
	WorkloadDisruption bool `json:"workloadDisruption,omitempty"`
	// CompletionTimeout bounds the memory copy; ProgressTimeout bounds a
	// stretch without progress.
	CompletionTimeout time.Duration `json:"completionTimeout"`
	ProgressTimeout   time.Duration `json:"progressTimeout"`
	// BlockMigration copies the node-local disks too.
	BlockMigration bool `json:"blockMigration,omitempty"`
}

// TargetEndpoint is where the target node's agent accepts the streams:
// its address and the port of each stream (0 the target's libvirt,
// 49152 memory, 49153 disks), upstream's targetDirectMigrationNodePorts.
type TargetEndpoint struct {
	Address string         `json:"address"`
	Ports   map[string]int `json:"ports"`
}

// NodeRequest is a node step of one migration.
type NodeRequest struct {
	Migration Ref            `json:"migration"`
	VMI       Ref            `json:"vmi"`
	Plan      MigrationPlan  `json:"plan"`
	Target    Side           `json:"target"`
	Endpoint  TargetEndpoint `json:"endpoint,omitzero"`
}

// Copy is one node's copy of the VMI's domain.
type Copy string

// What a node reports of its copy.
const (
	// CopyRunning runs the guest.
	CopyRunning Copy = "Running"
	// CopyPaused holds the guest's state, stopped (a source between
	// the end of the copy and the target's start, or paused by a user).
	CopyPaused Copy = "Paused"
	// CopyIncoming is a target that has not received the guest.
	CopyIncoming Copy = "Incoming"
	// CopyGone is no domain at all.
	CopyGone Copy = "Gone"
)

// Copies is what both nodes report, read fresh, never remembered: the
// only ground on which the workflow destroys a copy.
type Copies struct {
	Source Copy `json:"source"`
	Target Copy `json:"target"`
}

// MigrateResult is how the migration ended.
type MigrateResult struct {
	Phase  string `json:"phase"`
	Reason string `json:"reason,omitempty"`
	// TargetNode runs the VMI when the migration succeeded.
	TargetNode string `json:"targetNode,omitempty"`
}

// Error types a retry cannot fix.
const (
	// ErrTypeMigrationRefused: the VMI cannot migrate (not running, not
	// migratable, another migration in flight); the message is upstream's.
	ErrTypeMigrationRefused = "MigrationRefused"
	// ErrTypeTargetNotScheduled: the target pod stayed unschedulable or
	// pending past upstream's timeouts.
	ErrTypeTargetNotScheduled = "TargetNotScheduled"
	// ErrTypeMigrationFailed: libvirt ended the copy with an error, or
	// the monitor aborted it (no progress, too slow).
	ErrTypeMigrationFailed = "MigrationFailed"
)
