import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstIP, matchesFilter, vmRows } from './vm_row';

const now = Date.parse('2026-01-10T12:00:00Z');

test('vmRows joins VMs and VMIs by namespace and name', () => {
  const rows = vmRows(
    [
      { metadata: { name: 'web', namespace: 'b', creationTimestamp: '2026-01-10T11:59:00Z' }, status: { printableStatus: 'Running' } },
      { metadata: { name: 'db', namespace: 'a', creationTimestamp: '2026-01-09T12:00:00Z' }, status: { printableStatus: 'Stopped' } },
    ],
    [
      {
        metadata: { name: 'web', namespace: 'b' },
        status: { phase: 'Running', nodeName: 'node-1', interfaces: [{ name: 'default', ipAddress: '10.244.0.7' }] },
      },
      // Same name, other namespace: not web's VMI.
      { metadata: { name: 'web', namespace: 'c' }, status: { phase: 'Running', nodeName: 'node-2' } },
    ],
    now,
  );
  assert.deepEqual(
    rows.map((r) => [r.key, r.status.label, r.node, r.ip, r.age]),
    [
      ['a/db', 'Stopped', '', '', '24h'],
      ['b/web', 'Running', 'node-1', '10.244.0.7', '60s'],
      ['c/web', 'Running', 'node-2', '', ''],
    ],
  );
  assert.equal(rows[2]!.vm, undefined);
});

test('firstIP skips interfaces without an address', () => {
  assert.equal(firstIP({ status: { interfaces: [{ name: 'a' }, { name: 'b', ipAddresses: ['fd00::2'] }] } }), 'fd00::2');
  assert.equal(firstIP(undefined), '');
});

test('matchesFilter needs every word somewhere in the row', () => {
  const [row] = vmRows(
    [{ metadata: { name: 'fedora-web', namespace: 'prod' }, status: { printableStatus: 'Running' } }],
    [{ metadata: { name: 'fedora-web', namespace: 'prod' }, status: { phase: 'Running', nodeName: 'node-1' } }],
    now,
  );
  assert.ok(matchesFilter(row!, ''));
  assert.ok(matchesFilter(row!, 'FEDORA'));
  assert.ok(matchesFilter(row!, 'web running'));
  assert.ok(matchesFilter(row!, 'node-1'));
  assert.ok(!matchesFilter(row!, 'web stopped'));
});
