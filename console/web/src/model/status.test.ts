import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vmStatus } from './status';
import type { VirtualMachine, VirtualMachineInstance } from './types';

const vm = (printableStatus?: string, extra: Partial<VirtualMachine> = {}): VirtualMachine => ({
  metadata: { name: 'a', namespace: 'ns' },
  status: printableStatus ? { printableStatus } : {},
  ...extra,
});
const vmi = (phase: string, paused = false): VirtualMachineInstance => ({
  metadata: { name: 'a', namespace: 'ns' },
  status: { phase, conditions: paused ? [{ type: 'Paused', status: 'True' }] : [] },
});

test('printableStatus leads, with a severity for its colour', () => {
  assert.deepEqual(vmStatus(vm('Running'), vmi('Running')), { label: 'Running', severity: 'success' });
  assert.deepEqual(vmStatus(vm('Stopped')), { label: 'Stopped', severity: 'none' });
  assert.deepEqual(vmStatus(vm('Starting')), { label: 'Starting', severity: 'info' });
  assert.deepEqual(vmStatus(vm('Migrating')), { label: 'Migrating', severity: 'info' });
  assert.deepEqual(vmStatus(vm('Unknown')), { label: 'Unknown', severity: 'warning' });
});

test('without printableStatus the VMI phase decides', () => {
  assert.equal(vmStatus(vm(), vmi('Scheduling')).label, 'Starting');
  assert.equal(vmStatus(vm(), vmi('Running')).label, 'Running');
  assert.equal(vmStatus(vm(), vmi('Succeeded')).label, 'Stopped');
  assert.equal(vmStatus(vm(), vmi('Failed')).severity, 'danger');
  assert.equal(vmStatus(vm()).label, 'Stopped');
  assert.equal(vmStatus(undefined, vmi('Running')).label, 'Running');
});

test('the VMI corrects a printableStatus that lags a pause or unpause', () => {
  assert.deepEqual(vmStatus(vm('Running'), vmi('Running', true)), { label: 'Paused', severity: 'warning' });
  assert.equal(vmStatus(vm('Paused'), vmi('Running', false)).label, 'Running');
  assert.equal(vmStatus(vm('Paused'), vmi('Running', true)).label, 'Paused');
});

test('a VM being deleted is Terminating', () => {
  const v = vm('Running', { metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  assert.equal(vmStatus(v, vmi('Running')).label, 'Terminating');
});

test('an error status carries the condition that explains it', () => {
  const v = vm('ErrorUnschedulable');
  v.status!.conditions = [
    { type: 'Ready', status: 'False', reason: 'PodNotExists' },
    { type: 'Failure', status: 'True', message: '0/1 nodes are available: insufficient memory' },
  ];
  assert.deepEqual(vmStatus(v), {
    label: 'ErrorUnschedulable',
    severity: 'danger',
    message: '0/1 nodes are available: insufficient memory',
  });
  v.status!.conditions = [{ type: 'Ready', status: 'False', reason: 'PodNotExists' }];
  assert.equal(vmStatus(v).message, 'PodNotExists');
  // A running VM's conditions are not surfaced as an explanation.
  const ok = vm('Running');
  ok.status!.conditions = [{ type: 'Ready', status: 'False', message: 'booting' }];
  assert.equal(vmStatus(ok).message, undefined);
});
