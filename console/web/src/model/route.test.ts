import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, routeHash, type Route } from './route';

test('routes round-trip through the fragment', () => {
  const routes: Route[] = [
    { page: 'overview' },
    { page: 'vms' },
    { page: 'disks' },
    { page: 'operations' },
    { page: 'vm', namespace: 'default', name: 'fedora', tab: 'overview' },
    { page: 'vm', namespace: 'ns', name: 'a/b c', tab: 'console' },
    { page: 'vm', namespace: 'ns', name: 'vm', tab: 'migrations' },
    { page: 'create-vm', namespace: '' },
    { page: 'create-vm', namespace: 'team a' },
  ];
  for (const r of routes) assert.deepEqual(parseRoute(routeHash(r)), r);
});

test('unknown or partial fragments fall back sensibly', () => {
  assert.deepEqual(parseRoute(''), { page: 'overview' });
  assert.deepEqual(parseRoute('#/nope'), { page: 'overview' });
  assert.deepEqual(parseRoute('#/vms/only-namespace'), { page: 'vms' });
  assert.deepEqual(parseRoute('#/vms/ns/vm/bogus'), { page: 'vm', namespace: 'ns', name: 'vm', tab: 'overview' });
  assert.deepEqual(parseRoute('#/vms/ns/%E0%A4%A'), { page: 'vm', namespace: 'ns', name: '%E0%A4%A', tab: 'overview' });
});
