import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEvent, fromList, sortedItems, type WatchEvent } from './watch_list';
import { splitLines } from './json_lines';
import type { KubeObject } from './types';

const obj = (name: string, rv: string, ns = 'ns'): KubeObject => ({ metadata: { name, namespace: ns, resourceVersion: rv } });

test('events keep the list current and advance the resourceVersion', () => {
  let s = fromList({ metadata: { resourceVersion: '10' }, items: [obj('b', '5'), obj('a', '7')] });
  assert.deepEqual(sortedItems(s).map((o) => o.metadata?.name), ['a', 'b']);
  assert.equal(s.resourceVersion, '10');

  const before = s;
  s = applyEvent(s, { type: 'ADDED', object: obj('c', '11') });
  assert.equal(before.items.size, 2, 'the previous state is left alone');
  s = applyEvent(s, { type: 'MODIFIED', object: { ...obj('a', '12'), kind: 'changed' } });
  s = applyEvent(s, { type: 'DELETED', object: obj('b', '13') });
  assert.deepEqual(sortedItems(s).map((o) => [o.metadata?.name, o.metadata?.resourceVersion]), [
    ['a', '12'],
    ['c', '11'],
  ]);
  assert.equal(s.resourceVersion, '13');
  s = applyEvent(s, { type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } });
  assert.equal(s.resourceVersion, '20');
  assert.equal(s.items.size, 2);
  assert.equal(s.expired, false);
});

test('same name in two namespaces are two items', () => {
  let s = fromList({ items: [obj('a', '1', 'x')] });
  s = applyEvent(s, { type: 'ADDED', object: obj('a', '2', 'y') });
  assert.equal(s.items.size, 2);
});

test('410 Gone asks for a re-list; other errors too, with the message', () => {
  const s = fromList({ metadata: { resourceVersion: '10' }, items: [obj('a', '1')] });
  const gone: WatchEvent<KubeObject> = {
    type: 'ERROR',
    object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (50)' },
  };
  const g = applyEvent(s, gone);
  assert.equal(g.expired, true);
  assert.equal(g.error, undefined);
  assert.equal(g.items.size, 1, 'items stay on screen until the re-list replaces them');
  const e = applyEvent(s, { type: 'ERROR', object: { code: 500, message: 'internal error' } });
  assert.equal(e.expired, true);
  assert.equal(e.error, 'internal error');
});

test('splitLines keeps a partial line for the next chunk', () => {
  let r = splitLines('', '{"a":1}\n{"b"');
  assert.deepEqual(r, { lines: ['{"a":1}'], rest: '{"b"' });
  r = splitLines(r.rest, ':2}\n\n{"c":3}\n');
  assert.deepEqual(r, { lines: ['{"b":2}', '{"c":3}'], rest: '' });
  assert.deepEqual(splitLines('', 'no newline'), { lines: [], rest: 'no newline' });
});
