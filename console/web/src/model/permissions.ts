import type { Operation } from './operations';
import type { VmAction } from './vm_actions';
import { readAccessResult } from './wire';

// AccessCheck is one SelfSubjectAccessReview's resourceAttributes, as
// POST /console/access takes them.
export interface AccessCheck {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface AccessResult {
  allowed: boolean;
  reason?: string;
}

const subresources = 'subresources.kubevirt.io';

// vmActionCheck is the permission each action needs, as KubeVirt's
// kubevirt.io:edit role grants it: the start/stop/restart and pause/unpause
// subresources take "update" (they are PUTs), delete is on the VM itself.
export function vmActionCheck(action: VmAction, namespace: string, name: string): AccessCheck {
  switch (action) {
    case 'start':
    case 'stop':
    case 'restart':
    case 'migrate':
      return { verb: 'update', group: subresources, resource: 'virtualmachines', subresource: action, namespace, name };
    case 'pause':
    case 'unpause':
      return { verb: 'update', group: subresources, resource: 'virtualmachineinstances', subresource: action, namespace, name };
    case 'delete':
      return { verb: 'delete', group: 'kubevirt.io', resource: 'virtualmachines', namespace, name };
  }
}

// createVmCheck is the permission to create a VM in a namespace. The data
// volumes of its templates are created by KubeVirt's controller, not the
// user, so this one check is the whole of it.
export function createVmCheck(namespace: string): AccessCheck {
  return { verb: 'create', group: 'kubevirt.io', resource: 'virtualmachines', namespace };
}

// editVmCheck is the permission the YAML editor's Save needs.
export function editVmCheck(namespace: string, name: string): AccessCheck {
  return { verb: 'update', group: 'kubevirt.io', resource: 'virtualmachines', namespace, name };
}

// The consoles are websocket GETs of VMI subresources.
export function consoleCheck(kind: 'console' | 'vnc', namespace: string, name: string): AccessCheck {
  return { verb: 'get', group: subresources, resource: 'virtualmachineinstances', subresource: kind, namespace, name };
}

// ownerResources maps the kinds whose operations the console shows to their
// resource, for the permission that lets a user cancel: an operation may be
// cancelled by whoever may delete the object it works for.
const ownerResources: Record<string, { group: string; resource: string }> = {
  VirtualMachine: { group: 'kubevirt.io', resource: 'virtualmachines' },
  VirtualMachineInstance: { group: 'kubevirt.io', resource: 'virtualmachineinstances' },
  VirtualMachineInstanceMigration: { group: 'kubevirt.io', resource: 'virtualmachineinstancemigrations' },
  VirtualMachineSnapshot: { group: 'snapshot.kubevirt.io', resource: 'virtualmachinesnapshots' },
  VirtualMachineRestore: { group: 'snapshot.kubevirt.io', resource: 'virtualmachinerestores' },
  VirtualMachineExport: { group: 'export.kubevirt.io', resource: 'virtualmachineexports' },
  DataVolume: { group: 'cdi.kubevirt.io', resource: 'datavolumes' },
  DataImportCron: { group: 'cdi.kubevirt.io', resource: 'dataimportcrons' },
  PersistentVolumeClaim: { group: '', resource: 'persistentvolumeclaims' },
  HyperConverged: { group: 'hco.kubevirt.io', resource: 'hyperconvergeds' },
  KubeVirt: { group: 'kubevirt.io', resource: 'kubevirts' },
  CDI: { group: 'cdi.kubevirt.io', resource: 'cdis' },
};

// cancelCheck is the permission to cancel an operation. The server names
// the owner's group and resource; where it does not, the kind's are looked
// up. An owner without a name (a workflow that records only its namespace)
// asks about the whole namespace.
export function cancelCheck(owner: { kind: string; namespace?: string; name?: string; group?: string; resource?: string }): AccessCheck | undefined {
  const r = owner.resource ? { group: owner.group ?? '', resource: owner.resource } : ownerResources[owner.kind];
  if (!r) return undefined;
  const check: AccessCheck = { verb: 'delete', group: r.group, resource: r.resource };
  if (owner.namespace) check.namespace = owner.namespace;
  if (owner.name) check.name = owner.name;
  return check;
}

// checkKey identifies a check so answers can be cached and shared between
// rows asking the same question.
export function checkKey(c: AccessCheck): string {
  return [c.verb, c.group, c.resource, c.subresource ?? '', c.namespace ?? '', c.name ?? ''].join('|');
}

// zipAccess pairs checks with the server's answers, which come back in the
// same order. A short or malformed answer denies what it does not cover:
// an action is enabled only on an explicit allowed=true.
export function zipAccess(checks: readonly AccessCheck[], results: unknown): Map<string, AccessResult> {
  const out = new Map<string, AccessResult>();
  const list = Array.isArray(results) ? results : [];
  checks.forEach((c, i) => out.set(checkKey(c), readAccessResult(list[i])));
  return out;
}

export function describeCheck(c: AccessCheck): string {
  const what = c.subresource ? `${c.resource}/${c.subresource}` : c.resource;
  const group = c.group ? `.${c.group}` : '';
  const where = c.namespace ? ` in namespace ${c.namespace}` : '';
  return `${c.verb} ${what}${group}${where}`;
}

export interface Decision {
  enabled: boolean;
  reason?: string;
}

// decide combines whether an action applies to the object's state with
// whether the user may perform it. Until the answer arrives the action is
// disabled: a click that RBAC would refuse must not be possible even for a
// moment.
export function decide(notApplicable: string | undefined, check: AccessCheck, access: ReadonlyMap<string, AccessResult> | undefined): Decision {
  if (notApplicable) return { enabled: false, reason: notApplicable };
  const r = access?.get(checkKey(check));
  if (!r) return { enabled: false, reason: 'Checking permissions…' };
  if (!r.allowed) {
    const because = r.reason ? `: ${r.reason}` : '';
    return { enabled: false, reason: `You may not ${describeCheck(check)}${because}` };
  }
  return { enabled: true };
}

// cancelDecision enables Cancel on a running operation the user may stop.
// The server's own verdict (cancellable) wins when it gives one; otherwise
// the console asks about deleting the owner.
export function cancelDecision(op: Operation, access: ReadonlyMap<string, AccessResult> | undefined): Decision {
  if (op.status !== 'Running') return { enabled: false, reason: `The operation is ${op.status}` };
  const check = op.owner ? cancelCheck(op.owner) : undefined;
  if (op.cancellable === true) return { enabled: true };
  if (op.cancellable === false) {
    return { enabled: false, reason: check ? `You may not ${describeCheck(check)}` : 'You may not cancel this operation' };
  }
  if (!check) return { enabled: false, reason: 'The operation has no owning object to authorize against' };
  return decide(undefined, check, access);
}

// cancelChecks are the questions to ask for a list of operations: only
// running ones the server gave no verdict on.
export function cancelChecks(ops: readonly Operation[]): AccessCheck[] {
  return ops
    .filter((op) => op.status === 'Running' && op.cancellable === undefined && op.owner)
    .map((op) => cancelCheck(op.owner!))
    .filter((c): c is AccessCheck => c !== undefined);
}
