import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStale, resourceVersionIn, saveProblem } from './yaml_edit';
import { toYaml } from './yaml';

test('a webhook refusal keeps its message as the title and lists each cause once', () => {
  const p = saveProblem(
    {
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      message: 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: spec.template.spec.domain.devices.disks[0].name \'x\' not found.',
      details: {
        causes: [
          { reason: 'FieldValueInvalid', message: "spec.template.spec.domain.devices.disks[0].name 'x' not found.", field: 'spec.template.spec.domain.devices.disks[0].name' },
          { reason: 'FieldValueRequired', message: 'memory is required', field: '.spec.template.spec.domain.memory' },
        ],
      },
    },
    'ignored',
  );
  assert.match(p.title, /^admission webhook "virtualmachine-validator.kubevirt.io" denied the request/);
  assert.deepEqual(p.causes, ['spec.template.spec.domain.memory: memory is required']);
  assert.equal(p.conflict, false);
});

test('a conflict is told apart so the page offers a reload', () => {
  const p = saveProblem(
    {
      kind: 'Status',
      code: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on virtualmachines.kubevirt.io "vm": the object has been modified; please apply your changes to the latest version and try again',
    },
    '',
  );
  assert.equal(p.conflict, true);
  assert.deepEqual(p.causes, []);
});

test('a plain-text failure is shown as it came', () => {
  assert.deepEqual(saveProblem(undefined, 'Bad Gateway'), { title: 'Bad Gateway', causes: [], conflict: false });
});

test('the resourceVersion is read from the YAML the editor shows', () => {
  const vm = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'vm', resourceVersion: '4711', labels: { a: 'b' } }, spec: { resourceVersion: '1' } };
  assert.equal(resourceVersionIn(toYaml(vm)), '4711');
  assert.equal(resourceVersionIn('metadata:\n  name: x\nspec:\n  resourceVersion: "9"\n'), undefined);
  assert.equal(resourceVersionIn('kind: VirtualMachine\n'), undefined);
});

test('the text is stale once the object has a newer resourceVersion', () => {
  const text = toYaml({ metadata: { name: 'vm', resourceVersion: '10' } });
  assert.equal(isStale(text, { metadata: { resourceVersion: '10' } }), false);
  assert.equal(isStale(text, { metadata: { resourceVersion: '11' } }), true);
  assert.equal(isStale('metadata:\n  name: vm\n', { metadata: { resourceVersion: '11' } }), false);
  assert.equal(isStale(text, undefined), false);
});
