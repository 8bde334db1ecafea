import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vmSummary } from './vm_summary';

test('vmSummary reads the template of a stopped VM', () => {
  const s = vmSummary(
    {
      spec: {
        template: {
          spec: {
            domain: {
              cpu: { cores: 2, sockets: 2 },
              memory: { guest: '2Gi' },
              devices: {
                disks: [{ name: 'root', disk: { bus: 'virtio' } }, { name: 'iso', cdrom: { bus: 'sata' } }, { name: 'ci' }],
                interfaces: [{ name: 'default', model: 'virtio' }],
              },
            },
            volumes: [
              { name: 'root', dataVolume: { name: 'root-dv' } },
              { name: 'iso', containerDisk: { image: 'registry/iso:1' } },
              { name: 'ci', cloudInitNoCloud: {} },
            ],
          },
        },
      },
    },
    undefined,
  );
  assert.equal(s.cpu, '4 vCPU');
  assert.equal(s.memory, '2Gi');
  assert.deepEqual(s.disks, [
    { name: 'root', type: 'disk', bus: 'virtio', source: 'DataVolume root-dv' },
    { name: 'iso', type: 'cdrom', bus: 'sata', source: 'container image registry/iso:1' },
    { name: 'ci', type: 'disk', bus: '', source: 'cloud-init' },
  ]);
  assert.deepEqual(s.interfaces, [{ name: 'default', model: 'virtio', mac: '', ip: '' }]);
});

test('vmSummary prefers the running instance and its reported addresses', () => {
  const s = vmSummary(
    { spec: { instancetype: { name: 'u1.medium' }, template: { spec: {} } } },
    {
      spec: { domain: { cpu: { cores: 1 }, resources: { requests: { memory: '4Gi' } }, devices: { interfaces: [{ name: 'default' }] } } },
      status: { interfaces: [{ name: 'default', ipAddress: '10.244.0.9', mac: '02:00:00:00:00:01' }] },
    },
  );
  assert.equal(s.cpu, '1 vCPU');
  assert.equal(s.memory, '4Gi');
  assert.equal(s.instancetype, 'u1.medium');
  assert.deepEqual(s.interfaces, [{ name: 'default', model: '', mac: '02:00:00:00:00:01', ip: '10.244.0.9' }]);
  assert.equal(vmSummary({ spec: { instancetype: { name: 'u1.small' } } }, undefined).cpu, 'from instance type');
});

test('vmSummary fills what the instance leaves out from the template', () => {
  const s = vmSummary(
    {
      spec: {
        template: {
          spec: {
            domain: { memory: { guest: '1Gi' }, devices: { disks: [{ name: 'root', disk: { bus: 'virtio' } }] } },
            volumes: [{ name: 'root', persistentVolumeClaim: { claimName: 'root-pvc' } }],
          },
        },
      },
    },
    { spec: { domain: { cpu: { cores: 2 } } }, status: { phase: 'Running' } },
  );
  assert.equal(s.cpu, '2 vCPU');
  assert.equal(s.memory, '1Gi');
  assert.deepEqual(s.disks, [{ name: 'root', type: 'disk', bus: 'virtio', source: 'PVC root-pvc' }]);
});

test('volumes without a disk are listed as the disks KubeVirt gives them', () => {
  const s = vmSummary(
    {
      spec: {
        instancetype: { name: 'u1.nano' },
        template: { spec: { domain: { devices: {} }, volumes: [{ name: 'rootdisk', dataVolume: { name: 'vm-rootdisk' } }] } },
      },
    },
    undefined,
  );
  assert.deepEqual(s.disks, [{ name: 'rootdisk', type: 'disk', bus: '', source: 'DataVolume vm-rootdisk' }]);
});
