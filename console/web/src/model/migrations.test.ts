import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeMigration,
  cancelApplicable,
  cancelMigrationCheck,
  copyProgress,
  formatBytes,
  migrationProgress,
  migrationWorkflowId,
  nodesOf,
  outcomeOf,
  sortMigrations,
  transitionsOf,
} from './migrations';
import type { Operation } from './operations';
import type { VirtualMachineInstanceMigration } from './types';

const GiB = 1 << 30;
const MiB = 1 << 20;

const vmim = (name: string, created: string | undefined, phase?: string, extra: Partial<VirtualMachineInstanceMigration> = {}) =>
  ({
    metadata: { namespace: 'ns', name, uid: `uid-${name}`, creationTimestamp: created },
    status: phase ? { phase } : undefined,
    ...extra,
  }) as VirtualMachineInstanceMigration;

test('migrations are listed newest first, and the newest unfinished one is in flight', () => {
  const list = [
    vmim('first', '2026-01-01T00:00:00Z', 'Succeeded'),
    vmim('third', '2026-01-03T00:00:00Z', 'Failed'),
    vmim('second', '2026-01-02T00:00:00Z', 'Running'),
    vmim('unstored', undefined),
  ];
  assert.deepEqual(sortMigrations(list).map((m) => m.metadata?.name), ['unstored', 'third', 'second', 'first']);
  assert.equal(activeMigration(list)?.metadata?.name, 'unstored');
  assert.equal(activeMigration(list.slice(0, 3))?.metadata?.name, 'second');
  assert.equal(activeMigration([list[0]!, list[1]!]), undefined, 'none when every migration ended');
});

test('phases are listed in the order they began, each with how long after the first', () => {
  const m = vmim('m', '2026-01-01T00:00:00Z', 'Running', {
    status: {
      phase: 'Running',
      phaseTransitionTimestamps: [
        { phase: 'Running', phaseTransitionTimestamp: '2026-01-01T00:00:09Z' },
        { phase: 'Pending', phaseTransitionTimestamp: '2026-01-01T00:00:00Z' },
        { phase: 'Scheduling', phaseTransitionTimestamp: '2026-01-01T00:00:01Z' },
        { phase: 'Broken' },
      ],
    },
  });
  assert.deepEqual(transitionsOf(m), [
    { phase: 'Pending', at: '2026-01-01T00:00:00Z', after: '+0s' },
    { phase: 'Scheduling', at: '2026-01-01T00:00:01Z', after: '+1s' },
    { phase: 'Running', at: '2026-01-01T00:00:09Z', after: '+9s' },
  ]);
  assert.deepEqual(transitionsOf(vmim('new', undefined)), []);
});

test('nodes come from the flat fields or from the nested states; the outcome tells failure and abort', () => {
  const flat = vmim('a', undefined, 'Failed', {
    status: { migrationState: { sourceNode: 'node-1', targetNode: 'node-2', failureReason: 'Live migration failed', abortStatus: 'Succeeded' } },
  });
  assert.deepEqual(nodesOf(flat), { source: 'node-1', target: 'node-2' });
  assert.equal(outcomeOf(flat), 'Live migration failed; abort Succeeded');
  const nested = vmim('b', undefined, 'Running', {
    status: { migrationState: { sourceState: { node: 'n1' }, targetState: { node: 'n2' }, abortRequested: true } },
  });
  assert.deepEqual(nodesOf(nested), { source: 'n1', target: 'n2' });
  assert.equal(outcomeOf(nested), 'abort requested');
  assert.deepEqual(nodesOf(vmim('c', undefined)), { source: '', target: '' });
  assert.equal(outcomeOf(vmim('c', undefined)), '');
});

test('sizes read in binary units, one decimal below ten', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(1.2 * GiB), '1.2 GiB');
  assert.equal(formatBytes(2 * GiB), '2 GiB');
  assert.equal(formatBytes(12 * MiB), '12 MiB');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(-5), '0 B');
});

test('a running copy reads as sent of total, what remains, the pass and the rates', () => {
  assert.deepEqual(
    copyProgress({
      phase: 'Running',
      dataTotal: 2 * GiB,
      dataProcessed: 1.2 * GiB,
      dataRemaining: 0.5 * GiB,
      iteration: 3,
      dirtyRate: 12 * MiB,
      memoryTransferRate: 100 * MiB,
    }),
    { percent: 75, text: '1.2 GiB of 2 GiB, 512 MiB remaining, iteration 3, dirty rate 12 MiB/s, transfer rate 100 MiB/s' },
  );
  // Resent pages make what was sent pass the total; the bar stays in range.
  assert.deepEqual(copyProgress({ dataTotal: GiB, dataProcessed: 3 * GiB, dataRemaining: 2 * GiB }), {
    percent: 0,
    text: '3 GiB of 1 GiB, 2 GiB remaining',
  });
  assert.deepEqual(copyProgress({ dataTotal: GiB }), { text: '0 B of 1 GiB' }, 'no bar before anything was sent');
  assert.equal(copyProgress({ phase: 'Running' }), undefined, 'nothing reported yet');
  assert.equal(copyProgress({ dataTotal: 'lots' }), undefined);
  assert.equal(copyProgress(null), undefined);
  assert.equal(copyProgress([1]), undefined);
});

test("a running migration's progress is its own workflow's, and only while it runs", () => {
  const memo = { phase: 'Running', dataTotal: 2 * GiB, dataProcessed: GiB, dataRemaining: GiB };
  const op = (id: string, status = 'Running'): Operation => ({ id, type: 'virt.MigrateVirtualMachineInstance', status, progress: memo });
  const running = vmim('m', '2026-01-01T00:00:00Z', 'Running');
  assert.equal(migrationWorkflowId('uid-m'), 'virt-migrate-uid-m');
  assert.deepEqual(migrationProgress(running, [op('virt-migrate-other'), op('virt-migrate-uid-m')]), {
    percent: 50,
    text: '1 GiB of 2 GiB, 1 GiB remaining',
  });
  assert.equal(migrationProgress(running, [op('virt-migrate-other')]), undefined, 'another migration of the same name');
  assert.equal(migrationProgress(running, [op('virt-migrate-uid-m', 'Completed')]), undefined);
  assert.equal(migrationProgress(vmim('m', undefined, 'Succeeded'), [op('virt-migrate-uid-m')]), undefined);
});

test('cancelling deletes the VMIM, and only one that has not ended', () => {
  const m = vmim('m', '2026-01-01T00:00:00Z', 'Running');
  assert.deepEqual(cancelMigrationCheck(m), {
    verb: 'delete',
    group: 'kubevirt.io',
    resource: 'virtualmachineinstancemigrations',
    namespace: 'ns',
    name: 'm',
  });
  assert.equal(cancelApplicable(m), undefined);
  assert.equal(cancelApplicable(vmim('m', undefined)), undefined, 'a pending one can be cancelled');
  assert.equal(cancelApplicable(vmim('m', undefined, 'Succeeded')), 'The migration has succeeded');
  assert.equal(cancelApplicable(vmim('m', undefined, 'Failed')), 'The migration has failed');
  const deleting = vmim('m', undefined, 'Running');
  deleting.metadata!.deletionTimestamp = '2026-01-01T00:01:00Z';
  assert.equal(cancelApplicable(deleting), 'The migration is being cancelled');
});
