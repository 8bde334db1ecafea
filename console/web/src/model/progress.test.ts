import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diskProgress, parseProgress } from './progress';

test('parseProgress reads CDI percentages', () => {
  assert.equal(parseProgress('45.20%'), 45.2);
  assert.equal(parseProgress('100.0%'), 100);
  assert.equal(parseProgress('0%'), 0);
  assert.equal(parseProgress('7'), 7);
  assert.equal(parseProgress(' 12.5 % '), 12.5);
  assert.equal(parseProgress(33), 33);
});

test('parseProgress has nothing to show for unknown progress', () => {
  assert.equal(parseProgress('N/A'), undefined);
  assert.equal(parseProgress(''), undefined);
  assert.equal(parseProgress(undefined), undefined);
  assert.equal(parseProgress(null), undefined);
  assert.equal(parseProgress('abc%'), undefined);
  assert.equal(parseProgress(NaN), undefined);
});

test('parseProgress clamps to a bar', () => {
  assert.equal(parseProgress('101%'), 100);
  assert.equal(parseProgress('-3%'), 0);
});

test('diskProgress completes a Succeeded disk and marks failures', () => {
  assert.deepEqual(diskProgress({ status: { phase: 'Succeeded', progress: '99.87%' } }), {
    phase: 'Succeeded',
    percent: 100,
    variant: 'success',
  });
  assert.deepEqual(diskProgress({ status: { phase: 'ImportInProgress', progress: '45.20%' } }), {
    phase: 'ImportInProgress',
    percent: 45.2,
  });
  assert.deepEqual(diskProgress({ status: { phase: 'Failed', progress: '10%' } }), {
    phase: 'Failed',
    percent: 10,
    variant: 'danger',
  });
  assert.deepEqual(diskProgress({}), { phase: 'Pending', percent: undefined });
});
