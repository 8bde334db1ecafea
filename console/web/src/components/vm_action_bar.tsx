import { useState } from 'react';
import { Button, Modal, ModalBody, ModalFooter, ModalHeader, Tooltip } from '@patternfly/react-core';
import * as api from '../api';
import { useAccess } from '../hooks';
import { decide, vmActionCheck } from '../model/permissions';
import { actionLabels, applicable, vmActions, type VmAction } from '../model/vm_actions';
import type { VmRow } from '../model/vm_row';

// useVmActions decides, for one VM, which actions are enabled and why not,
// and performs them; the list's kebab and the details page's buttons share it.
export function useVmActions(row: Pick<VmRow, 'namespace' | 'name' | 'status' | 'vmi'> | undefined) {
  const ns = row?.namespace ?? '';
  const name = row?.name ?? '';
  const checks = row ? vmActions.map((a) => vmActionCheck(a, ns, name)) : [];
  const access = useAccess(checks);
  const decisions = new Map(
    vmActions.map((a) => [a, row ? decide(applicable(a, row.status, !!row.vmi), vmActionCheck(a, ns, name), access) : { enabled: false }]),
  );
  return {
    decisions,
    run: (a: VmAction) => api.vmAction(a, ns, name),
  };
}

// ConfirmDelete asks before deleting, naming the VM, as kubectl does not.
export function ConfirmDelete({ name, onConfirm, onClose }: { name: string; onConfirm: () => void; onClose: () => void }) {
  return (
    <Modal isOpen variant="small" onClose={onClose} aria-labelledby="confirm-delete-title">
      <ModalHeader title="Delete virtual machine?" titleIconVariant="warning" labelId="confirm-delete-title" />
      <ModalBody>
        <b>{name}</b> and its running instance will be deleted, and with them the DataVolumes of its dataVolumeTemplates.
      </ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={onConfirm}>
          Delete
        </Button>
        <Button variant="link" onClick={onClose}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}

// VmActionBar is the details page's row of action buttons. A disabled
// button keeps its tooltip (isAriaDisabled), so the reason is readable.
export function VmActionBar({ row, onError }: { row: VmRow | undefined; onError: (e: string | undefined) => void }) {
  const { decisions, run } = useVmActions(row);
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState<VmAction>();
  const perform = (a: VmAction) => {
    setBusy(a);
    onError(undefined);
    run(a)
      .catch((e: unknown) => onError(`${actionLabels[a]}: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => setBusy(undefined));
  };
  return (
    <>
      {vmActions.map((a) => {
        const d = decisions.get(a)!;
        const button = (
          <Button
            key={a}
            data-action={a}
            variant={a === 'delete' ? 'danger' : 'secondary'}
            isAriaDisabled={!d.enabled || busy !== undefined}
            isLoading={busy === a}
            onClick={() => (a === 'delete' ? setConfirm(true) : perform(a))}
            style={{ marginRight: 'var(--pf-t--global--spacer--sm)' }}
          >
            {actionLabels[a]}
          </Button>
        );
        return d.reason ? (
          <Tooltip key={a} content={d.reason}>
            {button}
          </Tooltip>
        ) : (
          button
        );
      })}
      {confirm && row && (
        <ConfirmDelete
          name={row.name}
          onClose={() => setConfirm(false)}
          onConfirm={() => {
            setConfirm(false);
            perform('delete');
          }}
        />
      )}
    </>
  );
}
