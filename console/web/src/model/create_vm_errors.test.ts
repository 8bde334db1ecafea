import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldFor, formErrors } from './create_vm_errors';

test('cause paths land on the form field they are about', () => {
  assert.equal(fieldFor('metadata.name'), 'name');
  assert.equal(fieldFor('.spec.instancetype.name'), 'instancetype');
  assert.equal(fieldFor('spec.preference'), 'preference');
  assert.equal(fieldFor('spec.runStrategy'), 'start');
  assert.equal(fieldFor('spec.dataVolumeTemplates[0].spec.sourceRef.name'), 'source');
  assert.equal(fieldFor('spec.dataVolumeTemplates[0].spec.source.http.url'), 'source');
  assert.equal(fieldFor('spec.dataVolumeTemplates[0].spec.storage.resources.requests.storage'), 'diskSize');
  assert.equal(fieldFor('spec.template.spec.volumes[0].containerDisk.image'), 'source');
  assert.equal(fieldFor('spec.template.spec.domain.memory.guest'), 'memory');
  // A prefix must end at a path boundary.
  assert.equal(fieldFor('spec.preferenceX'), undefined);
  assert.equal(fieldFor('spec.template.spec.domain.devices.disks[0]'), undefined);
  assert.equal(fieldFor(undefined), undefined);
});

test("a webhook's causes go to their fields under the Status message", () => {
  const e = formErrors(
    {
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      message: 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: Failure to find instancetype: not found',
      details: {
        causes: [
          { reason: 'FieldValueNotFound', message: 'Failure to find instancetype: not found', field: 'spec.instancetype' },
          { reason: 'FieldValueInvalid', message: 'bad image', field: 'spec.template.spec.volumes[0].containerDisk.image' },
          { reason: 'FieldValueInvalid', message: 'disk bus is unknown', field: 'spec.template.spec.domain.devices.disks[0].disk.bus' },
        ],
      },
    },
    'fallback',
  );
  assert.deepEqual(e.fields, { instancetype: ['Failure to find instancetype: not found'], source: ['bad image'] });
  assert.deepEqual(e.general, [
    'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: Failure to find instancetype: not found',
    'spec.template.spec.domain.devices.disks[0].disk.bus: disk bus is unknown',
  ]);
});

test('an existing name and a missing namespace point at their fields without causes', () => {
  const exists = formErrors({ code: 409, reason: 'AlreadyExists', message: 'virtualmachines.kubevirt.io "a" already exists', details: { name: 'a' } }, '');
  assert.deepEqual(exists.fields, { name: ['virtualmachines.kubevirt.io "a" already exists'] });
  const nons = formErrors({ code: 404, reason: 'NotFound', message: 'namespaces "x" not found', details: { name: 'x', kind: 'namespaces' } }, '');
  assert.deepEqual(nons.fields, { namespace: ['namespaces "x" not found'] });
});

test('a refusal that is not a Status keeps its text', () => {
  assert.deepEqual(formErrors(undefined, '502 Bad Gateway'), { general: ['502 Bad Gateway'], fields: {} });
  const forbidden = formErrors({ code: 403, reason: 'Forbidden', message: 'forbidden: User "v" cannot create' }, 'x');
  assert.deepEqual(forbidden, { general: ['forbidden: User "v" cannot create'], fields: {} });
});
