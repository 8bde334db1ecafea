import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  initialValues,
  paramFields,
  parametersToSend,
  processErrors,
  templateOptions,
  validateParams,
  virtualMachinesOf,
  type Template,
} from './template';

const tpl: Template = {
  metadata: { name: 'fedora', namespace: 'openshift' },
  parameters: [
    { name: 'NAME', displayName: 'VM name', description: 'The VM', generate: 'expression', from: 'fedora-[a-z]{8}' },
    { name: 'DATA_SOURCE_NAME', value: 'fedora', required: true },
    { name: 'CLOUD_USER_PASSWORD', required: true },
  ],
};

test('parameters become fields with their template values', () => {
  const f = paramFields(tpl);
  assert.deepEqual(
    f.map((p) => [p.name, p.label, p.required, p.generated, p.initial]),
    [
      ['NAME', 'VM name', false, true, ''],
      ['DATA_SOURCE_NAME', 'DATA_SOURCE_NAME', true, false, 'fedora'],
      ['CLOUD_USER_PASSWORD', 'CLOUD_USER_PASSWORD', true, false, ''],
    ],
  );
  assert.deepEqual(initialValues(f), { NAME: '', DATA_SOURCE_NAME: 'fedora', CLOUD_USER_PASSWORD: '' });
  assert.deepEqual(paramFields(undefined), []);
});

test('only changed values are sent, so generators still run', () => {
  const f = paramFields(tpl);
  assert.deepEqual(parametersToSend(f, { NAME: '', DATA_SOURCE_NAME: 'fedora', CLOUD_USER_PASSWORD: 'pw' }), { CLOUD_USER_PASSWORD: 'pw' });
  assert.deepEqual(parametersToSend(f, { NAME: 'mine', DATA_SOURCE_NAME: '' }), { NAME: 'mine', DATA_SOURCE_NAME: '' });
});

test('a required parameter without a generator must be filled', () => {
  const f = paramFields(tpl);
  assert.deepEqual(Object.keys(validateParams(f, initialValues(f))), ['CLOUD_USER_PASSWORD']);
  assert.deepEqual(validateParams(f, { ...initialValues(f), CLOUD_USER_PASSWORD: 'x' }), {});
  assert.deepEqual(Object.keys(validateParams(f, { ...initialValues(f), DATA_SOURCE_NAME: '', CLOUD_USER_PASSWORD: 'x' })), ['DATA_SOURCE_NAME']);
});

test('process refusals land on their parameter, by name or by index', () => {
  const f = paramFields(tpl);
  const e = processErrors(
    {
      kind: 'Status',
      code: 422,
      message: 'Template.template.openshift.io "fedora" is invalid',
      details: {
        causes: [
          { field: 'parameters[NAME]', message: 'bad name' },
          { field: 'template.parameters[2]', message: 'template.parameters[2]: parameter CLOUD_USER_PASSWORD is required' },
          { field: 'parameters[NOPE]', message: 'unknown parameter name "NOPE"' },
          { field: 'item[0].objects', message: 'not an object' },
        ],
      },
    },
    'fallback',
    f,
  );
  assert.deepEqual(e.params, {
    NAME: ['bad name'],
    CLOUD_USER_PASSWORD: ['template.parameters[2]: parameter CLOUD_USER_PASSWORD is required'],
  });
  assert.deepEqual(e.general, [
    'Template.template.openshift.io "fedora" is invalid',
    'parameters[NOPE]: unknown parameter name "NOPE"',
    'item[0].objects: not an object',
  ]);
  assert.deepEqual(processErrors(undefined, '502 Bad Gateway', f), { general: ['502 Bad Gateway'], params: {} });
});

test('only VirtualMachines are taken from the List, in the chosen namespace unless fixed', () => {
  const vms = virtualMachinesOf(
    {
      kind: 'List',
      items: [
        { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'a' } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } },
        { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'b', namespace: 'fixed' } },
      ],
    },
    'mine',
  );
  assert.deepEqual(
    vms.map((v) => [v.metadata.name, v.metadata.namespace]),
    [
      ['a', 'mine'],
      ['b', 'fixed'],
    ],
  );
});

test('template options list the namespace first, each once', () => {
  const o = templateOptions(
    [{ metadata: { name: 'own', namespace: 'ns' } }],
    [
      { metadata: { name: 'fedora', namespace: 'openshift', annotations: { 'openshift.io/display-name': 'Fedora VM' } } },
      { metadata: { name: 'own', namespace: 'ns' } },
    ],
  );
  assert.deepEqual(o, [
    { value: 'ns/own', label: 'ns/own' },
    { value: 'openshift/fedora', label: 'Fedora VM (openshift/fedora)' },
  ]);
});
