import { Alert, AlertActionCloseButton } from '@patternfly/react-core';

// ErrorAlert shows a failed request in the server's words (a webhook's or
// virt-api's message is what tells the user what to change).
export function ErrorAlert({ title, error, onClose }: { title: string; error?: string; onClose?: () => void }) {
  if (!error) return null;
  return (
    <Alert
      variant="danger"
      isInline
      title={title}
      actionClose={onClose ? <AlertActionCloseButton onClose={onClose} /> : undefined}
      style={{ marginBottom: 'var(--pf-t--global--spacer--md)' }}
    >
      {error}
    </Alert>
  );
}
