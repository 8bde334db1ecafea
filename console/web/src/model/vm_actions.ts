import type { VmStatus } from './status';

export type VmAction = 'start' | 'stop' | 'restart' | 'pause' | 'unpause' | 'migrate' | 'delete';

export const vmActions: readonly VmAction[] = ['start', 'stop', 'restart', 'pause', 'unpause', 'migrate', 'delete'];

export const actionLabels: Record<VmAction, string> = {
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
  pause: 'Pause',
  unpause: 'Unpause',
  migrate: 'Migrate',
  delete: 'Delete',
};

// applicable says whether an action makes sense in a VM's state, as
// virt-api would accept it: start needs no running instance, the others
// need one (or, for stop, a VM on its way up). An action that does not apply is disabled with this reason
// rather than sent and refused.
export function applicable(action: VmAction, status: VmStatus, hasVMI: boolean): string | undefined {
  const s = status.label;
  switch (action) {
    case 'start':
      // A VM in an error state without an instance (unschedulable, image
      // pull failed) may be started again; one on its way up may not.
      if (s === 'Stopped' || (!hasVMI && status.severity === 'danger')) return undefined;
      return 'The VM is already running';
    case 'stop':
      return !hasVMI && s === 'Stopped' ? 'The VM is not running' : undefined;
    case 'restart':
      return !hasVMI ? 'The VM is not running' : undefined;
    case 'pause':
      if (s === 'Paused') return 'The VM is already paused';
      return s !== 'Running' ? 'Only a running VM can be paused' : undefined;
    case 'unpause':
      return s !== 'Paused' ? 'The VM is not paused' : undefined;
    case 'migrate':
      // virt-api decides whether the cluster can move it (and says why
      // not); the console only asks for a running instance.
      return s !== 'Running' ? 'Only a running VM can be migrated' : undefined;
    case 'delete':
      return s === 'Terminating' ? 'The VM is being deleted' : undefined;
  }
}
