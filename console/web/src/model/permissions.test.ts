import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cancelCheck, cancelChecks, cancelDecision, checkKey, consoleCheck, decide, vmActionCheck, zipAccess } from './permissions';
import type { Operation } from './operations';

test('VM actions map to the subresources KubeVirt authorizes', () => {
  assert.deepEqual(vmActionCheck('start', 'ns', 'vm'), {
    verb: 'update',
    group: 'subresources.kubevirt.io',
    resource: 'virtualmachines',
    subresource: 'start',
    namespace: 'ns',
    name: 'vm',
  });
  assert.equal(vmActionCheck('pause', 'ns', 'vm').resource, 'virtualmachineinstances');
  assert.deepEqual(vmActionCheck('delete', 'ns', 'vm'), {
    verb: 'delete',
    group: 'kubevirt.io',
    resource: 'virtualmachines',
    namespace: 'ns',
    name: 'vm',
  });
  assert.equal(consoleCheck('vnc', 'ns', 'vm').verb, 'get');
});

test('cancelling needs delete on the owner, cluster-scoped owners without a namespace', () => {
  assert.deepEqual(cancelCheck({ kind: 'DataVolume', namespace: 'ns', name: 'disk' }), {
    verb: 'delete',
    group: 'cdi.kubevirt.io',
    resource: 'datavolumes',
    namespace: 'ns',
    name: 'disk',
  });
  assert.equal(cancelCheck({ kind: 'HyperConverged', name: 'kubevirt-hyperconverged' })?.namespace, undefined);
  assert.equal(cancelCheck({ kind: 'Mystery', name: 'x' }), undefined);
  // The server's group and resource are used as given.
  assert.deepEqual(cancelCheck({ kind: 'CustomRun', group: 'tekton.dev', resource: 'customruns', namespace: 'ns' }), {
    verb: 'delete',
    group: 'tekton.dev',
    resource: 'customruns',
    namespace: 'ns',
  });
});

test('cancel follows the server verdict, else delete on the owner', () => {
  const owner = { kind: 'DataVolume', namespace: 'ns', name: 'disk' };
  const run = (extra: Partial<Operation>): Operation => ({ id: 'a', type: 'Import', status: 'Running', owner, ...extra });
  assert.deepEqual(cancelDecision(run({ status: 'Completed' }), undefined), { enabled: false, reason: 'The operation is Completed' });
  assert.deepEqual(cancelDecision(run({ cancellable: true }), undefined), { enabled: true });
  assert.equal(cancelDecision(run({ cancellable: false }), undefined).enabled, false);
  const c = cancelCheck(owner)!;
  assert.deepEqual(cancelDecision(run({}), new Map([[checkKey(c), { allowed: true }]])), { enabled: true });
  assert.equal(cancelDecision(run({}), new Map()).enabled, false);
  assert.equal(cancelDecision(run({ owner: undefined }), undefined).enabled, false);
  assert.deepEqual(cancelChecks([run({}), run({ cancellable: true }), run({ status: 'Failed' })]), [c]);
});

test('answers pair with checks in order; anything unclear denies', () => {
  const checks = [vmActionCheck('start', 'ns', 'vm'), vmActionCheck('stop', 'ns', 'vm'), vmActionCheck('delete', 'ns', 'vm')];
  const m = zipAccess(checks, [{ allowed: true }, { allowed: false, reason: 'no RBAC policy matched' }]);
  assert.deepEqual(m.get(checkKey(checks[0]!)), { allowed: true });
  assert.deepEqual(m.get(checkKey(checks[1]!)), { allowed: false, reason: 'no RBAC policy matched' });
  assert.deepEqual(m.get(checkKey(checks[2]!)), { allowed: false });
  // console/server answers bare booleans.
  const bools = zipAccess(checks, [true, false, true]);
  assert.deepEqual([...bools.values()].map((r) => r.allowed), [true, false, true]);
  const junk = zipAccess(checks, { allowed: true });
  assert.equal(junk.get(checkKey(checks[0]!))?.allowed, false);
  // "allowed": "true" as a string is not an allow.
  assert.equal(zipAccess(checks, [{ allowed: 'true' }]).get(checkKey(checks[0]!))?.allowed, false);
});

test('decide disables until allowed, and says why', () => {
  const c = vmActionCheck('start', 'ns', 'vm');
  assert.deepEqual(decide(undefined, c, undefined), { enabled: false, reason: 'Checking permissions…' });
  assert.deepEqual(decide('The VM is already running', c, new Map([[checkKey(c), { allowed: true }]])), {
    enabled: false,
    reason: 'The VM is already running',
  });
  assert.deepEqual(decide(undefined, c, new Map([[checkKey(c), { allowed: true }]])), { enabled: true });
  assert.deepEqual(decide(undefined, c, new Map([[checkKey(c), { allowed: false, reason: 'viewer' }]])), {
    enabled: false,
    reason: 'You may not update virtualmachines/start.subresources.kubevirt.io in namespace ns: viewer',
  });
});
