import type { Condition, VirtualMachine, VirtualMachineInstance } from './types';

// Severity picks the label colour: the OpenShift console's green for
// running, blue for on-the-way states, orange for needs-a-look, red for
// failed, grey for at rest.
export type Severity = 'success' | 'info' | 'warning' | 'danger' | 'none';

export interface VmStatus {
  label: string;
  severity: Severity;
  // message explains an error status, from the condition that caused it.
  message?: string;
}

const transitional = new Set([
  'Provisioning',
  'Starting',
  'Stopping',
  'Terminating',
  'Migrating',
  'WaitingForVolumeBinding',
  'WaitingForReceiver',
]);
const errors = new Set([
  'CrashLoopBackOff',
  'ErrorUnschedulable',
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrorPvcNotFound',
  'DataVolumeError',
  'Failed',
]);

function severityOf(label: string): Severity {
  if (label === 'Running') return 'success';
  if (label === 'Stopped') return 'none';
  if (transitional.has(label)) return 'info';
  if (errors.has(label)) return 'danger';
  return 'warning';
}

function isTrue(conds: Condition[] | undefined, type: string): boolean {
  return !!conds?.some((c) => c.type === type && c.status === 'True');
}

// fromVMI is the status of a VMI without a VM (or of a VM whose controller
// has not yet written printableStatus), in printableStatus's words.
function fromVMI(vmi: VirtualMachineInstance): string {
  switch (vmi.status?.phase) {
    case 'Running':
      return 'Running';
    case 'Succeeded':
      return 'Stopped';
    case 'Failed':
      return 'Failed';
    case 'Unknown':
      return 'Unknown';
    default:
      return 'Starting';
  }
}

// why finds the condition that explains an error: a failure reported as
// True, or a readiness or sync reported as False. A message beats a bare
// reason, whichever object carries it.
function why(...lists: (Condition[] | undefined)[]): string | undefined {
  const bad = lists
    .flatMap((l) => l ?? [])
    .filter(
      (c) =>
        ((c.type === 'Failure' || c.type === 'ReconcileError') && c.status === 'True') ||
        ((c.type === 'Ready' || c.type === 'Synchronized' || c.type === 'PodScheduled') && c.status === 'False'),
    );
  return bad.find((c) => c.message)?.message ?? bad.find((c) => c.reason)?.reason;
}

// vmStatus is the list's Status column. The VM controller's printableStatus
// leads; the VMI corrects it where a watch event for the VMI arrives before
// the controller's update of the VM (pause, deletion), so an action shows
// at once.
export function vmStatus(vm: VirtualMachine | undefined, vmi?: VirtualMachineInstance): VmStatus {
  let label = vm?.status?.printableStatus || (vmi ? fromVMI(vmi) : 'Stopped');
  if (vm?.metadata?.deletionTimestamp) label = 'Terminating';
  else if (isTrue(vmi?.status?.conditions, 'Paused') && label === 'Running') label = 'Paused';
  else if (label === 'Paused' && vmi && !isTrue(vmi.status?.conditions, 'Paused')) label = 'Running';
  const severity = severityOf(label);
  const status: VmStatus = { label, severity };
  if (severity === 'danger' || severity === 'warning') {
    const message = why(vm?.status?.conditions, vmi?.status?.conditions);
    if (message) status.message = message;
  }
  return status;
}
