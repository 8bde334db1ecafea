// A VM's live migrations as its page shows them: each
// VirtualMachineInstanceMigration with its phases and nodes from the
// object, and, while it runs, the copy's progress from its workflow's memo
// (the VMIM's status, upstream's, has no progress fields).

import { humanDuration } from './age';
import type { Operation } from './operations';
import type { AccessCheck } from './permissions';
import type { Severity } from './status';
import type { VirtualMachineInstanceMigration } from './types';

// A migration's workflow is named after its VMIM's UID (contracts/virt's
// MigrateWorkflowID), so the page finds it without guessing by name.
export function migrationWorkflowId(uid: string): string {
  return `virt-migrate-${uid}`;
}

// isFinalMigration is upstream's VMIM IsFinal: a migration that ended
// cannot be cancelled any more.
export function isFinalMigration(m: VirtualMachineInstanceMigration): boolean {
  const p = m.status?.phase;
  return p === 'Succeeded' || p === 'Failed';
}

function created(m: VirtualMachineInstanceMigration): number {
  return Date.parse(m.metadata?.creationTimestamp ?? '') || 0;
}

// sortMigrations orders newest first; one not yet stored (no timestamp)
// counts as newest.
export function sortMigrations(list: readonly VirtualMachineInstanceMigration[]): VirtualMachineInstanceMigration[] {
  const t = (m: VirtualMachineInstanceMigration) => created(m) || Number.MAX_SAFE_INTEGER;
  return [...list].sort((a, b) => t(b) - t(a) || (b.metadata?.name ?? '').localeCompare(a.metadata?.name ?? ''));
}

// activeMigration is the migration in flight, the one "Cancel migration"
// deletes as virtctl migrate-cancel does: the newest that has not ended.
export function activeMigration(list: readonly VirtualMachineInstanceMigration[]): VirtualMachineInstanceMigration | undefined {
  return sortMigrations(list).find((m) => !isFinalMigration(m));
}

export function migrationPhase(m: VirtualMachineInstanceMigration): string {
  return m.status?.phase || 'Pending';
}

export function migrationSeverity(phase: string): Severity {
  if (phase === 'Succeeded') return 'success';
  if (phase === 'Failed') return 'danger';
  return 'info';
}

export interface PhaseTransition {
  phase: string;
  at: string;
  // after is how long after the first phase this one began, "+4s".
  after: string;
}

// transitionsOf lists the phases the migration went through, in the order
// they began.
export function transitionsOf(m: VirtualMachineInstanceMigration): PhaseTransition[] {
  const ts = (m.status?.phaseTransitionTimestamps ?? [])
    .filter((t) => t.phase && t.phaseTransitionTimestamp)
    .map((t) => ({ phase: t.phase!, at: t.phaseTransitionTimestamp!, ms: Date.parse(t.phaseTransitionTimestamp!) || 0 }))
    .sort((a, b) => a.ms - b.ms);
  const first = ts[0]?.ms ?? 0;
  return ts.map((t) => ({ phase: t.phase, at: t.at, after: `+${humanDuration(t.ms - first)}` }));
}

// nodesOf reads the source and target nodes from the flat fields, or
// from upstream's nested source and target states.
export function nodesOf(m: VirtualMachineInstanceMigration): { source: string; target: string } {
  const s = m.status?.migrationState;
  return { source: s?.sourceNode || s?.sourceState?.node || '', target: s?.targetNode || s?.targetState?.node || '' };
}

// outcomeOf says why a migration did not move the guest, and how an
// abort went: "" when there is nothing to tell.
export function outcomeOf(m: VirtualMachineInstanceMigration): string {
  const s = m.status?.migrationState;
  const parts: string[] = [];
  if (s?.failureReason) parts.push(s.failureReason);
  if (s?.abortStatus) parts.push(`abort ${s.abortStatus}`);
  else if (s?.abortRequested) parts.push('abort requested');
  return parts.join('; ');
}

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

// formatBytes writes a size in binary units, as KubeVirt's quantities
// read: one decimal below ten, none above ("1.2 GiB", "12 MiB").
export function formatBytes(n: number): string {
  let v = Math.max(0, n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const shown = u === 0 || v >= 10 ? Math.round(v) : Math.round(v * 10) / 10;
  return `${shown} ${units[u]}`;
}

export interface CopyView {
  percent?: number;
  text: string;
}

function counter(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

// copyProgress reads a migration workflow's progress memo: while the
// copy runs it carries libvirt's counters (bytes, and bytes per second
// for the rates); undefined before the copy reported anything. The bar is
// the share of the first pass sent; later passes resend dirtied pages, so
// what was sent may pass the total.
export function copyProgress(memo: unknown): CopyView | undefined {
  if (!memo || typeof memo !== 'object' || Array.isArray(memo)) return undefined;
  const p = memo as Record<string, unknown>;
  const total = counter(p.dataTotal);
  if (total === 0) return undefined;
  const processed = counter(p.dataProcessed);
  const remaining = counter(p.dataRemaining);
  const parts = [`${formatBytes(processed)} of ${formatBytes(total)}`];
  if (remaining) parts.push(`${formatBytes(remaining)} remaining`);
  if (counter(p.iteration)) parts.push(`iteration ${counter(p.iteration)}`);
  if (counter(p.dirtyRate)) parts.push(`dirty rate ${formatBytes(counter(p.dirtyRate))}/s`);
  if (counter(p.memoryTransferRate)) parts.push(`transfer rate ${formatBytes(counter(p.memoryTransferRate))}/s`);
  const view: CopyView = { text: parts.join(', ') };
  if (processed || remaining) view.percent = Math.min(100, Math.max(0, (100 * (total - Math.min(remaining, total))) / total));
  return view;
}

// migrationProgress is what a running migration's workflow last published
// of its copy, found among the operations by the workflow's ID. A
// migration that is not Running shows none: its memo's counters belong
// to a copy that is over, or has not begun.
export function migrationProgress(m: VirtualMachineInstanceMigration, ops: readonly Operation[]): CopyView | undefined {
  const uid = m.metadata?.uid;
  if (!uid || m.status?.phase !== 'Running') return undefined;
  const op = ops.find((o) => o.id === migrationWorkflowId(uid));
  return op && op.status === 'Running' ? copyProgress(op.progress) : undefined;
}

// cancelMigrationCheck is the permission "Cancel migration" needs: it
// deletes the VMIM, as upstream's console and virtctl migrate-cancel do.
export function cancelMigrationCheck(m: VirtualMachineInstanceMigration): AccessCheck {
  return {
    verb: 'delete',
    group: 'kubevirt.io',
    resource: 'virtualmachineinstancemigrations',
    namespace: m.metadata?.namespace ?? '',
    name: m.metadata?.name ?? '',
  };
}

// cancelApplicable says why a migration cannot be cancelled, or nothing
// when it can.
export function cancelApplicable(m: VirtualMachineInstanceMigration): string | undefined {
  if (isFinalMigration(m)) return `The migration has ${migrationPhase(m) === 'Succeeded' ? 'succeeded' : 'failed'}`;
  if (m.metadata?.deletionTimestamp) return 'The migration is being cancelled';
  return undefined;
}
