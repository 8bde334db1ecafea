// The client's exact requests, as the console server must answer them:
// fetch is replaced by a recorder, so these run without a server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from './api';

interface Call {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function record(respond: (c: Call) => Response): Call[] {
  const calls: Call[] = [];
  globalThis.fetch = (async (url: string, init: RequestInit = {}) => {
    const c: Call = {
      method: init.method ?? 'GET',
      url,
      headers: (init.headers ?? {}) as Record<string, string>,
      body: init.body as string | undefined,
    };
    calls.push(c);
    return respond(c);
  }) as typeof fetch;
  return calls;
}

const ok = (body: unknown) => new Response(JSON.stringify(body), { status: 200 });
(globalThis as { document?: unknown }).document = { cookie: 'other=1; virtflow-csrf=tok%3D1' };

test('csrfToken reads the virtflow-csrf cookie', () => {
  assert.equal(api.csrfToken('a=b; virtflow-csrf=xyz; c=d'), 'xyz');
  assert.equal(api.csrfToken('virtflow-csrf=a%20b'), 'a b');
});

test('login posts the token with the CSRF header and reads either user shape', async () => {
  const calls = record(() => ok({ user: { username: 'alice', groups: ['g'] }, csrfToken: 'c' }));
  assert.deepEqual(await api.login('secret'), { user: 'alice', groups: ['g'] });
  assert.equal(calls[0]!.method, 'POST');
  assert.equal(calls[0]!.url, '/auth/login');
  assert.equal(calls[0]!.body, '{"token":"secret"}');
  assert.equal(calls[0]!.headers['X-CSRF-Token'], 'tok=1');
  assert.equal(calls[0]!.headers['Content-Type'], 'application/json');
  await api.me();
  assert.equal(calls[1]!.url, '/auth/me');
  assert.equal(calls[1]!.headers['X-CSRF-Token'], undefined, 'GETs carry no CSRF header');
});

test('VM actions are PUTs on the KubeVirt subresources; delete is on the VM', async () => {
  const calls = record(() => ok({}));
  for (const a of ['start', 'stop', 'restart', 'pause', 'unpause', 'delete'] as const) await api.vmAction(a, 'my ns', 'vm-1');
  assert.deepEqual(
    calls.map((c) => `${c.method} ${c.url}`),
    [
      'PUT /apis/subresources.kubevirt.io/v1/namespaces/my%20ns/virtualmachines/vm-1/start',
      'PUT /apis/subresources.kubevirt.io/v1/namespaces/my%20ns/virtualmachines/vm-1/stop',
      'PUT /apis/subresources.kubevirt.io/v1/namespaces/my%20ns/virtualmachines/vm-1/restart',
      'PUT /apis/subresources.kubevirt.io/v1/namespaces/my%20ns/virtualmachineinstances/vm-1/pause',
      'PUT /apis/subresources.kubevirt.io/v1/namespaces/my%20ns/virtualmachineinstances/vm-1/unpause',
      'DELETE /apis/kubevirt.io/v1/namespaces/my%20ns/virtualmachines/vm-1',
    ],
  );
  assert.ok(calls.every((c) => c.headers['X-CSRF-Token'] === 'tok=1'));
});

test("a VM's migrations are selected by upstream's label, and cancelling one deletes it", async () => {
  assert.equal(
    api.paths.vmimsOf('my ns', 'vm-1'),
    '/apis/kubevirt.io/v1/namespaces/my%20ns/virtualmachineinstancemigrations?labelSelector=kubevirt.io%2Fvmi-name%3Dvm-1',
  );
  const calls = record(() => ok({ kind: 'Status', status: 'Success' }));
  await api.cancelMigration('my ns', 'kubevirt-migrate-vm-x2z9k');
  assert.deepEqual(
    calls.map((c) => `${c.method} ${c.url}`),
    ['DELETE /apis/kubevirt.io/v1/namespaces/my%20ns/virtualmachineinstancemigrations/kubevirt-migrate-vm-x2z9k'],
  );
  assert.equal(calls[0]!.headers['X-CSRF-Token'], 'tok=1');
});

test('errors carry the API server Status message', async () => {
  record(() => new Response(JSON.stringify({ kind: 'Status', code: 409, message: 'VM is not running', reason: 'Conflict' }), { status: 409 }));
  await assert.rejects(api.vmAction('stop', 'ns', 'vm'), (e: unknown) => {
    assert.ok(e instanceof api.ApiError);
    assert.equal(e.status, 409);
    assert.equal(e.message, 'VM is not running');
    return true;
  });
});

test('createVm posts the VM to its namespace and keeps a refusal\'s causes', async () => {
  const vm = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'a', namespace: 'my ns' } };
  const calls = record(() => new Response(JSON.stringify(vm), { status: 201 }));
  assert.deepEqual(await api.createVm(vm), vm);
  assert.equal(`${calls[0]!.method} ${calls[0]!.url}`, 'POST /apis/kubevirt.io/v1/namespaces/my%20ns/virtualmachines');
  assert.deepEqual(JSON.parse(calls[0]!.body!), vm);
  assert.equal(calls[0]!.headers['X-CSRF-Token'], 'tok=1');

  const refusal = {
    kind: 'Status',
    code: 422,
    reason: 'Invalid',
    message: 'denied',
    details: { causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec.instancetype' }] },
  };
  record(() => new Response(JSON.stringify(refusal), { status: 422 }));
  await assert.rejects(api.createVm(vm), (e: unknown) => {
    assert.ok(e instanceof api.ApiError);
    assert.equal(e.message, 'denied');
    assert.deepEqual(e.body?.details?.causes, refusal.details.causes);
    return true;
  });
});

test('a 401 anywhere reports the session gone', async () => {
  let told = 0;
  api.onUnauthorized(() => told++);
  record(() => new Response('{"message":"no session"}', { status: 401 }));
  await assert.rejects(api.me());
  assert.equal(told, 1);
});

test('access posts checks in batches and keeps answers in order', async () => {
  const calls = record((c) => {
    const n = (JSON.parse(c.body!) as unknown[]).length;
    return ok(Array.from({ length: n }, (_, i) => i % 2 === 0));
  });
  const checks = Array.from({ length: 250 }, (_, i) => ({ verb: 'get', group: '', resource: 'pods', name: `p${i}` }));
  const answers = await api.access(checks);
  assert.equal(calls.length, 2);
  assert.ok(calls.every((c) => c.method === 'POST' && c.url === '/console/access'));
  assert.equal((JSON.parse(calls[1]!.body!) as unknown[]).length, 50);
  assert.equal(answers.length, 250);
  assert.equal(answers[200], true);
  assert.equal(answers[201], false);
});

test('operations reads a bare array or {operations}, with the filter as query', async () => {
  const calls = record(() => ok({ operations: [{ id: 'a', type: 'T', status: 'Running', temporalUI: 'u' }] }));
  const ops = await api.operations({ namespace: 'ns', kind: 'VirtualMachine', name: 'vm' });
  assert.equal(calls[0]!.url, '/console/operations?namespace=ns&kind=VirtualMachine&name=vm');
  assert.equal(ops[0]!.uiURL, 'u');
  await api.cancelOperation('import/ns disk');
  assert.equal(calls[1]!.method, 'POST');
  assert.equal(calls[1]!.url, '/console/operations/import%2Fns%20disk/cancel');
});

test('watch streams JSON lines across chunk boundaries', async () => {
  const chunks = ['{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MOD', 'IFIED","object":{"metadata":{"name":"a"}}}\n'];
  const calls = record(
    () =>
      new Response(
        new ReadableStream({
          start(c) {
            for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
            c.close();
          },
        }),
      ),
  );
  const types: string[] = [];
  await api.watch(api.paths.vms('ns'), '42', (ev) => types.push(ev.type), new AbortController().signal);
  assert.deepEqual(types, ['ADDED', 'MODIFIED']);
  assert.equal(calls[0]!.url, '/apis/kubevirt.io/v1/namespaces/ns/virtualmachines?watch=1&allowWatchBookmarks=true&resourceVersion=42');
  // A path that already has a query gets the watch parameters appended.
  const c2 = record(() => new Response(''));
  await api.watch(api.paths.events('ns', 'vm'), '', () => {}, new AbortController().signal);
  assert.equal(c2[0]!.url, '/api/v1/namespaces/ns/events?fieldSelector=involvedObject.name%3Dvm&watch=1&allowWatchBookmarks=true');
});

test('console and VNC are the VMI subresources virtctl uses', () => {
  assert.equal(api.paths.vmiStream('ns', 'vm', 'console'), '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vm/console');
  assert.equal(api.paths.vmiStream('ns', 'vm', 'vnc'), '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vm/vnc');
  assert.deepEqual(api.streamProtocols, ['plain.kubevirt.io']);
  assert.equal(api.paths.dataVolumes(), '/apis/cdi.kubevirt.io/v1beta1/datavolumes');
});
