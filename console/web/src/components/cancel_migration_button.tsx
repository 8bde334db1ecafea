import { useState } from 'react';
import { Button, Tooltip } from '@patternfly/react-core';
import * as api from '../api';
import { useAccess } from '../hooks';
import { cancelApplicable, cancelMigrationCheck } from '../model/migrations';
import { decide } from '../model/permissions';
import type { VirtualMachineInstanceMigration } from '../model/types';

// CancelMigrationButton deletes a migration that has not ended, which
// stops it and keeps the VM on its source, as upstream's console and
// virtctl migrate-cancel do; enabled for whoever may delete the VMIM. A
// disabled button keeps its tooltip (isAriaDisabled), so the reason is
// readable.
export function CancelMigrationButton({
  migration,
  onError,
  size,
}: {
  migration: VirtualMachineInstanceMigration;
  onError: (e: string | undefined) => void;
  size?: 'sm';
}) {
  const check = cancelMigrationCheck(migration);
  const access = useAccess([check]);
  const d = decide(cancelApplicable(migration), check, access);
  const [busy, setBusy] = useState(false);
  const cancel = () => {
    setBusy(true);
    onError(undefined);
    api
      .cancelMigration(check.namespace ?? '', check.name ?? '')
      .catch((e: unknown) => onError(`Cancel migration: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => setBusy(false));
  };
  const button = (
    <Button
      variant="secondary"
      size={size}
      data-action="cancel-migration"
      isAriaDisabled={!d.enabled || busy}
      isLoading={busy}
      onClick={cancel}
      style={size ? undefined : { marginRight: 'var(--pf-t--global--spacer--sm)' }}
    >
      Cancel migration
    </Button>
  );
  return d.reason ? <Tooltip content={d.reason}>{button}</Tooltip> : button;
}
