package virt

import (
	"time"

	"github.com/virtflow/virtflow/contracts/typed"
)

// ProgressMemoKey is the memo entry holding Progress.
const ProgressMemoKey = "progress"

// Progress is the workflow's memo while it runs: the VMIM's phase and,
// while the copy runs, what the source last reported of it.
type Progress struct {
	Phase string `json:"phase"`
	// Transitions are every phase so far with when it began, in order:
	// the VMIM shows them all, however quickly they passed.
	Transitions []Transition `json:"transitions,omitempty"`
	// The copy's counters sit beside the phase in the memo, as the Web
	// UI and the console read them; a new phase clears them.
	CopyProgress
}

// Transition is when a migration entered a phase.
type Transition struct {
	Phase string    `json:"phase"`
	At    time.Time `json:"at"`
}

// ProgressSignalName is the signal the source's copy reports its
// counters to its own migration workflow on, the name every virtflow
// workflow takes its activities' progress on.
const ProgressSignalName = "virtflow.progress"

// ProgressSignal is the copy's report, typed.
var ProgressSignal = typed.Signal[CopyProgress]{Name: ProgressSignalName}

// CopyProgress is a running copy's counters, as libvirt's job stats on
// the source report them (upstream's kubevirt_vmi_migration_* metrics):
// bytes, and bytes per second for the rates.
type CopyProgress struct {
	// DataTotal is what the copy moves: the guest's memory, and its
	// node-local disks in a block migration.
	DataTotal uint64 `json:"dataTotal,omitempty"`
	// DataProcessed is what was sent so far, pages sent again included,
	// so it may pass DataTotal.
	DataProcessed uint64 `json:"dataProcessed,omitempty"`
	// DataRemaining is what is left to send in this pass.
	DataRemaining uint64 `json:"dataRemaining,omitempty"`
	// DirtyRate is how fast the guest dirties its memory again.
	DirtyRate uint64 `json:"dirtyRate,omitempty"`
	// Iteration is the pass over the guest's memory the copy is in.
	Iteration uint64 `json:"iteration,omitempty"`
	// MemoryTransferRate is how fast memory goes to the target.
	MemoryTransferRate uint64 `json:"memoryTransferRate,omitempty"`
}
