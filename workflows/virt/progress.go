package virt

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/virt"
)

// progressRelayChange versions the relay of the copy's reports into the
// memo. Runs recorded before it hold no marker and took no reports; they
// replay DefaultVersion, which publishes only the phases.
const progressRelayChange = "migration-progress-relay"

// startRelay decides, once and before the first phase is published,
// whether this run relays the copy's reports, and starts the relay if so.
func (m *migration) startRelay(ctx workflow.Context) {
	if workflow.GetVersion(ctx, progressRelayChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	m.relaying = true
	workflow.Go(ctx, m.relay)
}

// relay publishes what the source reports of the copy while it runs;
// reports that arrived together are folded into one upsert. The relay
// never fails the migration: a report is a note, the phases are the
// record.
func (m *migration) relay(ctx workflow.Context) {
	ch := virt.ProgressSignal.Channel(ctx)
	fold := func(r virt.CopyProgress) bool { return m.fold(ctx, r) }
	for {
		if !ch.ReceiveBurst(ctx, fold) {
			continue
		}
		if err := m.publish(ctx); err != nil {
			workflow.GetLogger(ctx).Warn("publishing the copy's progress", "error", err)
		}
	}
}

// fold takes one report into the memo and tells whether it changed it.
// Only the copy step's reports count: one that reaches the workflow after
// the step returned (the source signalled just before it ended) would
// show a copy that is over as running. The first says the copy started:
// the migration is Running from then on.
func (m *migration) fold(ctx workflow.Context, r virt.CopyProgress) bool {
	started := m.inCopy && m.runningOnReport && m.progress.Phase == virt.PhaseTargetReady
	if started {
		m.enter(ctx, virt.PhaseRunning)
	}
	if !m.inCopy || m.progress.Phase != virt.PhaseRunning || r == m.progress.CopyProgress {
		return started
	}
	m.progress.CopyProgress = r
	return true
}

// publish upserts the memo as it stands.
func (m *migration) publish(ctx workflow.Context) error {
	if err := workflow.UpsertMemo(ctx, map[string]any{virt.ProgressMemoKey: m.progress}); err != nil {
		return fmt.Errorf("publishing phase %s: %w", m.progress.Phase, err)
	}
	return nil
}
