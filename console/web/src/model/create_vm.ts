// The create-VM form's state and the VirtualMachine it becomes. Kept apart
// from the page so the manifest the console posts is pinned by unit tests:
// a wrong field here is a VM the webhook refuses or, worse, accepts and
// never boots.

import type { DataSource, KubeObject } from './types';

export type DiskSourceKind = 'dataSource' | 'http' | 'containerDisk';

export interface CreateVmForm {
  namespace: string;
  name: string;
  // Cluster-scoped instance type and preference; '' for none.
  instancetype: string;
  preference: string;
  sourceKind: DiskSourceKind;
  // "namespace/name" of the DataSource, so one select can offer all of them.
  dataSource: string;
  url: string;
  image: string;
  // Empty for a DataSource lets CDI size the clone from its source.
  diskSize: string;
  // Used only without an instance type, which otherwise supplies it.
  memory: string;
  start: boolean;
}

export type FormField = Exclude<keyof CreateVmForm, 'dataSource' | 'url' | 'image' | 'sourceKind'> | 'source';

// formField is the field whose errors an input's value is judged in: the
// boot disk's several inputs share one.
export function formField(k: keyof CreateVmForm): FormField {
  return k === 'dataSource' || k === 'url' || k === 'image' || k === 'sourceKind' ? 'source' : k;
}

export const rootDisk = 'rootdisk';
// The data volume is named after the VM and must itself be a valid label.
export const maxNameLength = 63 - `-${rootDisk}`.length;

export function emptyForm(namespace: string, name: string): CreateVmForm {
  return {
    namespace,
    name,
    instancetype: '',
    preference: '',
    sourceKind: 'dataSource',
    dataSource: '',
    url: '',
    image: '',
    // A boot source's disk is as large as its image unless asked otherwise.
    diskSize: '',
    memory: '2Gi',
    start: true,
  };
}

// importSize is proposed for an http import, whose size the server
// cannot know before the download, as the OpenShift console proposes it.
export const importSize = '30Gi';

// withSourceKind switches the boot disk's kind: an import needs a size and
// gets the usual one, a boot source goes back to its own size unless the
// user typed one.
export function withSourceKind(f: CreateVmForm, kind: DiskSourceKind, sizeTouched: boolean): CreateVmForm {
  let diskSize = f.diskSize;
  if (kind === 'http' && !diskSize) diskSize = importSize;
  if (kind === 'dataSource' && !sizeTouched && diskSize === importSize) diskSize = '';
  return { ...f, sourceKind: kind, diskSize };
}

const adjectives = ['amber', 'brisk', 'calm', 'deft', 'eager', 'fond', 'gentle', 'hardy', 'keen', 'lucid', 'merry', 'noble'];
const animals = ['otter', 'heron', 'lynx', 'marten', 'finch', 'ibex', 'koala', 'moose', 'newt', 'puffin', 'quail', 'wren'];

// generateName proposes a name as the OpenShift console does: readable, and
// unlikely to collide with a VM already there. The prefix is the boot
// image's name, when there is one, so a list of VMs says what they run.
export function generateName(prefix: string, random: () => number = Math.random): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length) % xs.length];
  const base = sanitizeName(prefix) || 'vm';
  const suffix = `${pick(adjectives)}-${pick(animals)}-${Math.floor(random() * 90 + 10)}`;
  return `${base.slice(0, maxNameLength - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}

// sanitizeName makes a DNS-1123 label of an arbitrary string (an image or
// DataSource name), or '' when nothing usable is left.
export function sanitizeName(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}

const labelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const quantityRe = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

export type FieldErrors = Partial<Record<FormField, string>>;

// validate catches what the user can fix before a round trip; the webhook
// stays the authority, and its answer is shown the same way.
export function validate(f: CreateVmForm): FieldErrors {
  const e: FieldErrors = {};
  if (!f.namespace) e.namespace = 'Choose a namespace.';
  if (!f.name) e.name = 'Enter a name.';
  else if (!labelRe.test(f.name)) e.name = 'Use lowercase letters, digits and "-", starting and ending with a letter or digit.';
  else if (f.name.length > maxNameLength) e.name = `Use at most ${maxNameLength} characters.`;
  switch (f.sourceKind) {
    case 'dataSource':
      if (!/^[^/]+\/[^/]+$/.test(f.dataSource)) e.source = 'Choose a boot source.';
      break;
    case 'http':
      if (!/^https?:\/\/[^\s/]+/.test(f.url.trim())) e.source = 'Enter an http:// or https:// URL.';
      break;
    case 'containerDisk':
      if (!f.image.trim() || /\s/.test(f.image.trim())) e.source = 'Enter a container image reference.';
      break;
  }
  const sizeNeeded = f.sourceKind === 'http';
  if (f.sourceKind !== 'containerDisk' && (f.diskSize || sizeNeeded)) {
    if (!quantityRe.test(f.diskSize)) e.diskSize = 'Enter a size such as 30Gi.';
  }
  if (!f.instancetype && !quantityRe.test(f.memory)) e.memory = 'Enter a memory size such as 2Gi, or choose an instance type.';
  return e;
}

// Shapes of the manifest's parts; the console's read-side types in
// types.ts are narrower than what it writes.
export interface DataVolumeTemplate {
  metadata: { name: string };
  spec: {
    sourceRef?: { kind: 'DataSource'; name: string; namespace: string };
    source?: { http: { url: string } };
    storage: { resources?: { requests: { storage: string } } };
  };
}

export interface NewVirtualMachine extends KubeObject {
  apiVersion: 'kubevirt.io/v1';
  kind: 'VirtualMachine';
  metadata: { name: string; namespace: string };
  spec: {
    runStrategy: 'Always' | 'Halted';
    instancetype?: { kind: 'VirtualMachineClusterInstancetype'; name: string };
    preference?: { kind: 'VirtualMachineClusterPreference'; name: string };
    dataVolumeTemplates?: DataVolumeTemplate[];
    template: {
      metadata?: { labels: Record<string, string> };
      spec: {
        domain: { devices: Record<string, never>; memory?: { guest: string } };
        volumes: ({ name: string } & ({ dataVolume: { name: string } } | { containerDisk: { image: string } }))[];
      };
    };
  };
}

export function dataVolumeName(vmName: string): string {
  return `${vmName}-${rootDisk}`;
}

// buildVirtualMachine is the object POSTed to virtualmachines. Devices are
// left empty, as `virtctl create vm` leaves them: KubeVirt adds a disk for
// each volume, and the preference picks its bus.
export function buildVirtualMachine(f: CreateVmForm): NewVirtualMachine {
  const name = f.name;
  const spec: NewVirtualMachine['spec'] = {
    runStrategy: f.start ? 'Always' : 'Halted',
    template: { spec: { domain: { devices: {} }, volumes: [] } },
  };
  if (f.instancetype) spec.instancetype = { kind: 'VirtualMachineClusterInstancetype', name: f.instancetype };
  else spec.template.spec.domain.memory = { guest: f.memory };
  if (f.preference) spec.preference = { kind: 'VirtualMachineClusterPreference', name: f.preference };

  const storage = (): DataVolumeTemplate['spec']['storage'] => (f.diskSize ? { resources: { requests: { storage: f.diskSize } } } : {});
  switch (f.sourceKind) {
    case 'dataSource': {
      const [namespace, dsName] = f.dataSource.split('/');
      spec.dataVolumeTemplates = [
        { metadata: { name: dataVolumeName(name) }, spec: { sourceRef: { kind: 'DataSource', name: dsName, namespace }, storage: storage() } },
      ];
      spec.template.spec.volumes.push({ name: rootDisk, dataVolume: { name: dataVolumeName(name) } });
      break;
    }
    case 'http':
      spec.dataVolumeTemplates = [
        { metadata: { name: dataVolumeName(name) }, spec: { source: { http: { url: f.url.trim() } }, storage: storage() } },
      ];
      spec.template.spec.volumes.push({ name: rootDisk, dataVolume: { name: dataVolumeName(name) } });
      break;
    case 'containerDisk':
      spec.template.spec.volumes.push({ name: rootDisk, containerDisk: { image: f.image.trim() } });
      break;
  }
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, namespace: f.namespace }, spec };
}

// DataSources that CDI's DataImportCrons keep current carry the instance
// type and preference their OS wants, as labels the OpenShift console reads
// too.
export const defaultInstancetypeLabel = 'instancetype.kubevirt.io/default-instancetype';
export const defaultPreferenceLabel = 'instancetype.kubevirt.io/default-preference';

export function sourceDefaults(labels: Record<string, string> | undefined): { instancetype?: string; preference?: string } {
  const out: { instancetype?: string; preference?: string } = {};
  if (labels?.[defaultInstancetypeLabel]) out.instancetype = labels[defaultInstancetypeLabel];
  if (labels?.[defaultPreferenceLabel]) out.preference = labels[defaultPreferenceLabel];
  return out;
}

export interface SourceOption {
  value: string;
  label: string;
  ready: boolean;
  labels?: Record<string, string>;
}

// sourceOptions lists DataSources for the boot-source select, ready ones
// first: one whose import has not finished would leave the VM provisioning
// until it does, which the label says rather than hides.
export function sourceOptions(items: readonly DataSource[]): SourceOption[] {
  return items
    .filter((d) => d.metadata?.name && d.metadata.namespace)
    .map((d) => {
      const value = `${d.metadata!.namespace}/${d.metadata!.name}`;
      const ready = d.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      return { value, label: ready ? value : `${value} (not ready)`, ready, labels: d.metadata!.labels };
    })
    .sort((a, b) => Number(b.ready) - Number(a.ready) || a.value.localeCompare(b.value));
}
