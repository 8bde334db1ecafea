import { test } from 'node:test';
import assert from 'node:assert/strict';
import { age, humanDuration } from './age';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

test('humanDuration matches kubectl at each boundary', () => {
  const cases: [number, string][] = [
    [-5 * s, '<invalid>'],
    [-500, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 30 * s, '5m30s'],
    [10 * m + 59 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [48 * h, '2d'],
    [3 * d + 5 * h, '3d5h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [731 * d, '2y1d'],
    [9 * 365 * d, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}ms`);
});

test('age measures from the creation timestamp', () => {
  const now = Date.parse('2026-01-10T12:00:00Z');
  assert.equal(age('2026-01-10T11:00:00Z', now), '60m');
  assert.equal(age('2026-01-07T12:00:00Z', now), '3d');
  assert.equal(age(undefined, now), '');
  assert.equal(age('not a time', now), '');
});
