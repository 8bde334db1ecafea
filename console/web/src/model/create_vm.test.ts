import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildVirtualMachine, emptyForm, formField, importSize, withSourceKind, generateName, sanitizeName, sourceDefaults, sourceOptions, validate, type CreateVmForm } from './create_vm';

const form = (over: Partial<CreateVmForm> = {}): CreateVmForm => ({
  ...emptyForm('team-a', 'fedora-vm'),
  instancetype: 'u1.medium',
  preference: 'fedora',
  dataSource: 'openshift-virtualization-os-images/fedora',
  ...over,
});

test('instance type and preference are cluster-scoped refs, and take the memory off the template', () => {
  const vm = buildVirtualMachine(form());
  assert.equal(vm.apiVersion, 'kubevirt.io/v1');
  assert.equal(vm.kind, 'VirtualMachine');
  assert.deepEqual(vm.metadata, { name: 'fedora-vm', namespace: 'team-a' });
  assert.deepEqual(vm.spec.instancetype, { kind: 'VirtualMachineClusterInstancetype', name: 'u1.medium' });
  assert.deepEqual(vm.spec.preference, { kind: 'VirtualMachineClusterPreference', name: 'fedora' });
  // KubeVirt refuses a VM whose template sets what its instance type does.
  assert.deepEqual(vm.spec.template.spec.domain, { devices: {} });
});

test('without an instance type the template carries the memory, and no refs are sent', () => {
  const vm = buildVirtualMachine(form({ instancetype: '', preference: '', memory: '4Gi' }));
  assert.equal('instancetype' in vm.spec, false);
  assert.equal('preference' in vm.spec, false);
  assert.deepEqual(vm.spec.template.spec.domain, { devices: {}, memory: { guest: '4Gi' } });
});

test('a DataSource boots through a data volume template with sourceRef', () => {
  const vm = buildVirtualMachine(form({ diskSize: '40Gi' }));
  assert.deepEqual(vm.spec.dataVolumeTemplates, [
    {
      metadata: { name: 'fedora-vm-rootdisk' },
      spec: {
        sourceRef: { kind: 'DataSource', name: 'fedora', namespace: 'openshift-virtualization-os-images' },
        storage: { resources: { requests: { storage: '40Gi' } } },
      },
    },
  ]);
  assert.deepEqual(vm.spec.template.spec.volumes, [{ name: 'rootdisk', dataVolume: { name: 'fedora-vm-rootdisk' } }]);
});

test('a DataSource without a size lets CDI infer it', () => {
  const vm = buildVirtualMachine(form({ diskSize: '' }));
  assert.deepEqual(vm.spec.dataVolumeTemplates?.[0].spec.storage, {});
  assert.deepEqual(validate(form({ diskSize: '' })), {});
});

test('an http URL is imported through a data volume template with source.http', () => {
  const vm = buildVirtualMachine(form({ sourceKind: 'http', url: ' https://example.org/disk.qcow2 ', diskSize: '10Gi' }));
  assert.deepEqual(vm.spec.dataVolumeTemplates, [
    {
      metadata: { name: 'fedora-vm-rootdisk' },
      spec: { source: { http: { url: 'https://example.org/disk.qcow2' } }, storage: { resources: { requests: { storage: '10Gi' } } } },
    },
  ]);
  assert.deepEqual(vm.spec.template.spec.volumes, [{ name: 'rootdisk', dataVolume: { name: 'fedora-vm-rootdisk' } }]);
});

test('a containerDisk is a volume alone, with no data volume', () => {
  const vm = buildVirtualMachine(form({ sourceKind: 'containerDisk', image: 'quay.io/containerdisks/fedora:40' }));
  assert.equal(vm.spec.dataVolumeTemplates, undefined);
  assert.deepEqual(vm.spec.template.spec.volumes, [{ name: 'rootdisk', containerDisk: { image: 'quay.io/containerdisks/fedora:40' } }]);
});

test('start after creation is runStrategy Always, otherwise Halted', () => {
  assert.equal(buildVirtualMachine(form({ start: true })).spec.runStrategy, 'Always');
  assert.equal(buildVirtualMachine(form({ start: false })).spec.runStrategy, 'Halted');
  assert.equal('running' in buildVirtualMachine(form()).spec, false);
});

test('validation names the field to fix', () => {
  assert.deepEqual(validate(form()), {});
  assert.ok(validate(form({ name: '' })).name);
  assert.ok(validate(form({ name: 'Fedora_VM' })).name);
  assert.ok(validate(form({ name: 'x'.repeat(60) })).name, 'the data volume name would be too long');
  assert.ok(validate(form({ namespace: '' })).namespace);
  assert.ok(validate(form({ dataSource: '' })).source);
  assert.ok(validate(form({ sourceKind: 'http', url: 'ftp://example.org/x' })).source);
  assert.equal(validate(form({ sourceKind: 'http', url: 'http://example.org/x' })).source, undefined);
  assert.ok(validate(form({ sourceKind: 'http', url: 'http://example.org/x', diskSize: '' })).diskSize, 'an import needs a size');
  assert.ok(validate(form({ sourceKind: 'containerDisk', image: '' })).source);
  assert.deepEqual(validate(form({ sourceKind: 'containerDisk', image: 'quay.io/x:1', diskSize: 'junk' })), {});
  assert.ok(validate(form({ diskSize: '30 GB' })).diskSize);
  assert.ok(validate(form({ instancetype: '', memory: 'lots' })).memory);
  assert.equal(validate(form({ memory: 'lots' })).memory, undefined);
});

test('generated names are valid labels led by the boot image', () => {
  let i = 0;
  const seq = [0, 0.5, 0.99];
  const r = () => seq[i++ % seq.length];
  const n = generateName('Fedora_40', r);
  assert.match(n, /^fedora-40-[a-z]+-[a-z]+-\d\d$/);
  assert.match(generateName('', r), /^vm-/);
  const long = generateName('a'.repeat(100), r);
  assert.equal(validate(form({ name: long })).name, undefined);
  assert.equal(sanitizeName('--Quay.io/Fedora:40--'), 'quay-io-fedora-40');
});

test('DataSource labels suggest an instance type and preference', () => {
  assert.deepEqual(
    sourceDefaults({ 'instancetype.kubevirt.io/default-instancetype': 'u1.small', 'instancetype.kubevirt.io/default-preference': 'fedora' }),
    { instancetype: 'u1.small', preference: 'fedora' },
  );
  assert.deepEqual(sourceDefaults(undefined), {});
});

test('boot sources list ready DataSources first and say which are not', () => {
  const ds = (ns: string, name: string, ready?: string) => ({
    metadata: { namespace: ns, name },
    status: ready ? { conditions: [{ type: 'Ready', status: ready }] } : undefined,
  });
  const opts = sourceOptions([ds('os', 'ubuntu', 'False'), ds('os', 'fedora', 'True'), ds('b', 'alpine'), { metadata: { name: 'x' } }]);
  assert.deepEqual(
    opts.map((o) => [o.value, o.label]),
    [
      ['os/fedora', 'os/fedora'],
      ['b/alpine', 'b/alpine (not ready)'],
      ['os/ubuntu', 'os/ubuntu (not ready)'],
    ],
  );
});

test('the boot disk inputs share the source field', () => {
  assert.equal(formField('url'), 'source');
  assert.equal(formField('image'), 'source');
  assert.equal(formField('dataSource'), 'source');
  assert.equal(formField('sourceKind'), 'source');
  assert.equal(formField('diskSize'), 'diskSize');
  assert.equal(formField('name'), 'name');
});

test('a boot source keeps its own size; an import is proposed the usual one', () => {
  const f = emptyForm('team-a', 'vm');
  assert.equal(f.diskSize, '', 'the DataSource default: the source image decides');
  const http = withSourceKind(f, 'http', false);
  assert.equal(http.diskSize, importSize);
  assert.equal(withSourceKind(http, 'dataSource', false).diskSize, '', 'back to the source, back to its size');
  assert.equal(withSourceKind({ ...http, diskSize: importSize }, 'dataSource', true).diskSize, importSize, 'a size the user typed stays');
  assert.equal(withSourceKind({ ...f, diskSize: '5Gi' }, 'http', true).diskSize, '5Gi');
  assert.equal(withSourceKind(f, 'containerDisk', false).sourceKind, 'containerDisk');
});
