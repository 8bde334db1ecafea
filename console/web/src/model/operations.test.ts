import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeProgress, isOperation, matchesOwner, mergeOperation, operationSeverity, type Operation } from './operations';

const op = (id: string, startTime: string, extra: Partial<Operation> = {}): Operation => ({
  id,
  type: 'ImportWorkflow',
  status: 'Running',
  startTime,
  ...extra,
});

test('mergeOperation adds, replaces by id and keeps newest first', () => {
  let l: Operation[] = [];
  l = mergeOperation(l, op('a', '2026-01-01T00:00:00Z'));
  l = mergeOperation(l, op('b', '2026-01-02T00:00:00Z'));
  assert.deepEqual(l.map((o) => o.id), ['b', 'a']);
  l = mergeOperation(l, op('a', '2026-01-01T00:00:00Z', { status: 'Completed', closeTime: '2026-01-03T00:00:00Z' }));
  assert.deepEqual(l.map((o) => [o.id, o.status]), [['b', 'Running'], ['a', 'Completed']]);
  // A late Running event does not reopen the closed operation.
  l = mergeOperation(l, op('a', '2026-01-01T00:00:00Z'));
  assert.equal(l.find((o) => o.id === 'a')?.status, 'Completed');
});

test('describeProgress reads percentages and progress memos', () => {
  assert.deepEqual(describeProgress(op('a', '', { progress: '45.20%' })), { percent: 45.2 });
  assert.deepEqual(describeProgress(op('a', '', { progress: 12 })), { percent: 12 });
  assert.deepEqual(describeProgress(op('a', '', { progress: null })), {});
  assert.deepEqual(describeProgress(op('a', '', { status: 'Completed' })), { percent: 100 });
  assert.deepEqual(describeProgress(op('a', '', { progress: { step: 'Converting', format: 'qcow2' } })), { text: 'Converting' });
  assert.deepEqual(describeProgress(op('a', '', { progress: { step: 'Run', message: 'disk-virt-customize' } })), {
    text: 'Run: disk-virt-customize',
  });
  assert.deepEqual(
    describeProgress(
      op('a', '', {
        progress: {
          step: 'WaitingForComponents',
          components: [{ kind: 'KubeVirt', available: true }, { kind: 'CDI', available: false }, { kind: 'SSP' }, { kind: 'NAO', available: true }],
        },
      }),
    ),
    { percent: 50, text: 'WaitingForComponents: 2 of 4 components available' },
  );
  assert.deepEqual(describeProgress(op('a', '', { progress: { percent: '80%' } })), { percent: 80 });
});

test("describeProgress reads a migration's phase and, while it copies, its counters", () => {
  assert.deepEqual(describeProgress(op('m', '', { progress: { phase: 'Scheduling', transitions: [] } })), { text: 'Scheduling' });
  assert.deepEqual(
    describeProgress(op('m', '', { progress: { phase: 'Running', dataTotal: 2 * 2 ** 30, dataProcessed: 2 ** 30, dataRemaining: 2 ** 30, iteration: 2 } })),
    { percent: 50, text: 'Running: 1 GiB of 2 GiB, 1 GiB remaining, iteration 2' },
  );
  // Counters left in a memo that moved on are not a copy in progress.
  assert.deepEqual(describeProgress(op('m', '', { status: 'Completed', progress: { phase: 'Succeeded', dataTotal: 2 ** 30 } })), {
    percent: 100,
    text: 'Succeeded',
  });
});

test('stream events that are not operations are dropped', () => {
  assert.ok(isOperation(op('a', '')));
  assert.ok(!isOperation({ id: '', status: 'Running' }));
  assert.ok(!isOperation({ status: 'Running' }));
  assert.ok(!isOperation(null));
  assert.ok(!isOperation('x'));
});

test('severity follows the Temporal status; owner filter as the server', () => {
  assert.equal(operationSeverity('Failed'), 'danger');
  assert.equal(operationSeverity('Completed'), 'success');
  assert.equal(operationSeverity('Whatever'), 'none');
  const o = op('a', '', { owner: { kind: 'DataVolume', namespace: 'ns', name: 'disk' } });
  assert.ok(matchesOwner(o, { namespace: 'ns' }));
  assert.ok(matchesOwner(o, { namespace: 'ns', kind: 'DataVolume', name: 'disk' }));
  assert.ok(!matchesOwner(o, { kind: 'VirtualMachine' }));
  assert.ok(!matchesOwner(op('b', ''), { namespace: 'ns' }));
});
