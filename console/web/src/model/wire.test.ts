import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readAccessResult, readOperations, readStreamMessage, readUser } from './wire';

test('readUser takes a flat or a nested user', () => {
  assert.deepEqual(readUser({ user: 'alice', groups: ['dev'] }), { user: 'alice', groups: ['dev'] });
  assert.deepEqual(readUser({ user: { username: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts', 7] }, csrfToken: 'x' }), {
    user: 'system:serviceaccount:ns:sa',
    groups: ['system:serviceaccounts'],
  });
  assert.deepEqual(readUser(null), { user: '', groups: [] });
});

test('readAccessResult takes booleans and objects; only true allows', () => {
  assert.deepEqual(readAccessResult(true), { allowed: true });
  assert.deepEqual(readAccessResult(false), { allowed: false });
  assert.deepEqual(readAccessResult({ allowed: false, reason: 'no' }), { allowed: false, reason: 'no' });
  assert.deepEqual(readAccessResult({ allowed: true }), { allowed: true });
  assert.deepEqual(readAccessResult('true'), { allowed: false });
  assert.deepEqual(readAccessResult(undefined), { allowed: false });
});

test('readOperations takes an array or {operations}, renaming the UI link', () => {
  const server = {
    operations: [
      {
        id: 'import-ns-disk',
        runId: 'r1',
        type: 'ImportWorkflow',
        status: 'Running',
        startTime: '2026-01-01T00:00:00Z',
        progress: { step: 'Converting' },
        owner: { group: 'cdi.kubevirt.io', version: 'v1beta1', kind: 'DataVolume', resource: 'datavolumes', namespace: 'ns', name: 'disk' },
        temporalUI: 'http://127.0.0.1:8233/namespaces/virtflow/workflows/import-ns-disk',
        cancellable: true,
      },
      { id: 'x', type: 'T', status: 'Completed', startTime: '2026-01-01T00:00:00Z', owner: null },
      { nonsense: true },
    ],
  };
  const ops = readOperations(server);
  assert.equal(ops.length, 2);
  assert.equal(ops[0]!.uiURL, 'http://127.0.0.1:8233/namespaces/virtflow/workflows/import-ns-disk');
  assert.equal(ops[0]!.cancellable, true);
  assert.equal(ops[0]!.owner?.resource, 'datavolumes');
  assert.equal('temporalUI' in ops[0]!, false);
  assert.equal(ops[1]!.owner, undefined);
  assert.deepEqual(readOperations([{ id: 'a', type: 'T', status: 'Running', uiURL: 'u' }])[0]!.uiURL, 'u');
  assert.deepEqual(readOperations({}), []);
});

test('stream events are snapshots or single updates', () => {
  assert.equal(readStreamMessage({ operations: [] }).kind, 'snapshot');
  assert.equal(readStreamMessage([{ id: 'a', type: 'T', status: 'Running' }]).kind, 'snapshot');
  const u = readStreamMessage({ id: 'a', type: 'T', status: 'Running' });
  assert.equal(u.kind, 'update');
  assert.equal(readStreamMessage({ message: 'hi' }).kind, 'ignore');
});
