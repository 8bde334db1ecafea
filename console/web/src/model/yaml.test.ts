import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forDisplay, toYaml } from './yaml';

test('toYaml renders nested objects and lists as kubectl does', () => {
  const vm = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: 'fedora', labels: { app: 'web' }, annotations: {} },
    spec: {
      running: false,
      template: {
        spec: {
          domain: { devices: { disks: [{ name: 'root', disk: { bus: 'virtio' } }, { name: 'ci' }] } },
          volumes: [],
        },
      },
    },
    status: { conditions: [{ type: 'Ready', status: 'False' }], ports: [80, 443] },
  };
  assert.equal(
    toYaml(vm),
    `apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: fedora
  labels:
    app: web
  annotations: {}
spec:
  running: false
  template:
    spec:
      domain:
        devices:
          disks:
          - name: root
            disk:
              bus: virtio
          - name: ci
      volumes: []
status:
  conditions:
  - type: Ready
    status: "False"
  ports:
  - 80
  - 443
`,
  );
});

test('toYaml quotes strings a reader would mistake', () => {
  const y = toYaml({ a: 'true', b: '8080', c: '', d: 'x: y', e: '#c', f: 'null', g: '1e3', h: 'plain text', i: null, 'k:ey': 1 });
  assert.equal(
    y,
    `a: "true"
b: "8080"
c: ""
d: "x: y"
e: "#c"
f: "null"
g: "1e3"
h: plain text
i: null
"k:ey": 1
`,
  );
});

test('toYaml writes multi-line strings as literal blocks', () => {
  assert.equal(
    toYaml({ userData: '#cloud-config\npassword: x\n' }),
    `userData: |
  #cloud-config
  password: x
`,
  );
  assert.equal(toYaml({ s: 'a\n\nb' }), 's: |-\n  a\n\n  b\n');
});

test('forDisplay drops managedFields only', () => {
  const o = { metadata: { name: 'x', managedFields: [{}] }, spec: {} };
  assert.deepEqual(forDisplay(o), { metadata: { name: 'x' }, spec: {} });
  assert.equal(o.metadata.managedFields.length, 1, 'the original is untouched');
});
