import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applicable, vmActions, type VmAction } from './vm_actions';
import type { Severity } from './status';

const st = (label: string, severity: Severity = 'info') => ({ label, severity });

function enabled(label: string, hasVMI: boolean): VmAction[] {
  return vmActions.filter((a) => applicable(a, st(label), hasVMI) === undefined);
}

test('each state enables the actions virt-api accepts in it', () => {
  assert.deepEqual(enabled('Stopped', false), ['start', 'delete']);
  assert.deepEqual(enabled('Running', true), ['stop', 'restart', 'pause', 'migrate', 'delete']);
  assert.deepEqual(enabled('Paused', true), ['stop', 'restart', 'unpause', 'delete']);
  // A VM that is starting can be stopped before its VMI exists.
  assert.deepEqual(enabled('Provisioning', false), ['stop', 'delete']);
  assert.equal(applicable('start', st('ErrorUnschedulable', 'danger'), false), undefined);
  assert.deepEqual(enabled('Terminating', true), ['stop', 'restart']);
});

test('a disabled action says why', () => {
  assert.equal(applicable('pause', st('Stopped'), false), 'Only a running VM can be paused');
  assert.equal(applicable('start', st('Running'), true), 'The VM is already running');
});
