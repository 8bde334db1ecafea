import { Label, Tooltip } from '@patternfly/react-core';
import type { Severity } from '../model/status';

const colors = {
  success: 'green',
  info: 'blue',
  warning: 'orange',
  danger: 'red',
  none: 'grey',
} as const;

export function StatusLabel({ label, severity, message }: { label: string; severity: Severity; message?: string }) {
  const l = (
    <Label color={colors[severity]} isCompact data-status={label}>
      {label}
    </Label>
  );
  return message ? <Tooltip content={message}>{l}</Tooltip> : l;
}
