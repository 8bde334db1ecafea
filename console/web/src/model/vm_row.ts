import { age } from './age';
import { objectKey } from './object_key';
import { vmStatus, type VmStatus } from './status';
import type { VirtualMachine, VirtualMachineInstance } from './types';

export interface VmRow {
  key: string;
  namespace: string;
  name: string;
  status: VmStatus;
  node: string;
  ip: string;
  age: string;
  vm?: VirtualMachine;
  vmi?: VirtualMachineInstance;
}

// firstIP is the address a user would ssh to: the first interface's,
// skipping interfaces the guest agent reports without one (loopback-less
// guests, interfaces still coming up).
export function firstIP(vmi: VirtualMachineInstance | undefined): string {
  for (const i of vmi?.status?.interfaces ?? []) {
    const ip = i.ipAddress || i.ipAddresses?.[0];
    if (ip) return ip;
  }
  return '';
}

// vmRows joins VMs with their VMIs by namespace/name. A VMI without a VM
// (created directly) gets a row too, as in the OpenShift console.
export function vmRows(
  vms: readonly VirtualMachine[],
  vmis: readonly VirtualMachineInstance[],
  now: number,
): VmRow[] {
  const byKey = new Map(vmis.map((i) => [objectKey(i), i]));
  const rows: VmRow[] = [];
  const row = (key: string, vm: VirtualMachine | undefined, vmi: VirtualMachineInstance | undefined): VmRow => {
    const meta = vm?.metadata ?? vmi?.metadata ?? {};
    return {
      key,
      namespace: meta.namespace ?? '',
      name: meta.name ?? '',
      status: vmStatus(vm, vmi),
      node: vmi?.status?.nodeName ?? '',
      ip: firstIP(vmi),
      age: age(meta.creationTimestamp, now),
      vm,
      vmi,
    };
  };
  for (const vm of vms) {
    const key = objectKey(vm);
    rows.push(row(key, vm, byKey.get(key)));
    byKey.delete(key);
  }
  for (const [key, vmi] of byKey) rows.push(row(key, undefined, vmi));
  rows.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  return rows;
}

// matchesFilter keeps rows whose name, status, node or IP contain every
// word of the filter, ignoring case.
export function matchesFilter(r: VmRow, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = [r.namespace, r.name, r.status.label, r.node, r.ip].join(' ').toLowerCase();
  return words.every((w) => hay.includes(w));
}
