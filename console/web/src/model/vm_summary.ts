import type { Disk, DomainSpec, VirtualMachine, VirtualMachineInstance, Volume } from './types';

export interface DiskSummary {
  name: string;
  type: string;
  bus: string;
  source: string;
}

export interface VmSummary {
  cpu: string;
  memory: string;
  instancetype?: string;
  preference?: string;
  disks: DiskSummary[];
  interfaces: { name: string; model: string; mac: string; ip: string }[];
}

// source names where a disk's data comes from, in the words of its volume.
function source(v: Volume | undefined): string {
  if (!v) return '';
  if (v.containerDisk) return `container image ${v.containerDisk.image ?? ''}`.trim();
  if (v.dataVolume) return `DataVolume ${v.dataVolume.name}`;
  if (v.persistentVolumeClaim) return `PVC ${v.persistentVolumeClaim.claimName}`;
  if (v.cloudInitNoCloud || v.cloudInitConfigDrive) return 'cloud-init';
  return Object.keys(v).filter((k) => k !== 'name')[0] ?? '';
}

// vmSummary describes a VM as its Overview tab shows it: from the running
// instance where it says (its spec has the instance type and defaults
// expanded), from the VM's template for what it leaves out.
export function vmSummary(vm: VirtualMachine | undefined, vmi: VirtualMachineInstance | undefined): VmSummary {
  const template = vm?.spec?.template?.spec ?? {};
  const live = vmi?.spec ?? {};
  const td: DomainSpec = template.domain ?? {};
  const ld: DomainSpec = live.domain ?? {};
  const c = ld.cpu ?? td.cpu;
  const vcpus = c ? (c.cores ?? 1) * (c.sockets ?? 1) * (c.threads ?? 1) : undefined;
  const memoryOf = (d: DomainSpec) => d.memory?.guest ?? d.resources?.requests?.memory;
  const memory = memoryOf(ld) ?? memoryOf(td) ?? '';
  const fromInstancetype = vm?.spec?.instancetype ? 'from instance type' : '';
  const listed = ld.devices?.disks?.length ? ld.devices.disks : (td.devices?.disks ?? []);
  const volumes = new Map([...(template.volumes ?? []), ...(live.volumes ?? [])].map((v) => [v.name, v]));
  // KubeVirt gives every volume without a disk a disk of its own (the bus
  // from the preference or its default), as a VM of an instance type
  // usually leaves them out.
  const disks: Disk[] = [...listed, ...[...volumes.keys()].filter((n) => !listed.some((d) => d.name === n)).map((name) => ({ name }))];
  const ifaces = ld.devices?.interfaces?.length ? ld.devices.interfaces : (td.devices?.interfaces ?? []);
  const statusIfaces = vmi?.status?.interfaces ?? [];
  return {
    cpu: vcpus ? `${vcpus} vCPU` : fromInstancetype,
    memory: memory || fromInstancetype,
    instancetype: vm?.spec?.instancetype?.name,
    preference: vm?.spec?.preference?.name,
    disks: disks.map((d) => ({
      name: d.name,
      type: d.cdrom ? 'cdrom' : d.lun ? 'lun' : 'disk',
      bus: d.disk?.bus ?? d.cdrom?.bus ?? '',
      source: source(volumes.get(d.name)),
    })),
    interfaces: ifaces.map((i) => {
      const st = statusIfaces.find((s) => s.name === i.name);
      return { name: i.name, model: i.model ?? '', mac: st?.mac ?? i.macAddress ?? '', ip: st?.ipAddress ?? '' };
    }),
  };
}
