import { useState } from 'react';
import { Button, EmptyState, Progress, ProgressMeasureLocation, Spinner, Tooltip } from '@patternfly/react-core';
import { ExternalLinkAltIcon } from '@patternfly/react-icons';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import * as api from '../api';
import { useAccess, useNow, type OperationsState } from '../hooks';
import { age, humanDuration } from '../model/age';
import { describeProgress, isRunning, operationSeverity, type Operation } from '../model/operations';
import { cancelChecks, cancelDecision } from '../model/permissions';
import { ErrorAlert } from './error_alert';
import { StatusLabel } from './status_label';

function duration(op: Operation, now: number): string {
  if (!op.startTime) return '';
  const end = op.closeTime ? Date.parse(op.closeTime) : now;
  return humanDuration(end - Date.parse(op.startTime));
}

// OperationsTable lists workflows with their live status and progress, a
// link to each in the Temporal Web UI, and Cancel for those the user may
// stop: whoever may delete the owning object.
export function OperationsTable({ state, showOwner = true }: { state: OperationsState; showOwner?: boolean }) {
  const now = useNow(5000);
  const [error, setError] = useState<string>();
  const [cancelling, setCancelling] = useState<ReadonlySet<string>>(new Set());
  const access = useAccess(cancelChecks(state.operations));

  const cancel = (op: Operation) => {
    setError(undefined);
    setCancelling((s) => new Set(s).add(op.id));
    api
      .cancelOperation(op.id)
      .catch((e: unknown) => setError(`Cancel ${op.type}: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() =>
        setCancelling((s) => {
          const n = new Set(s);
          n.delete(op.id);
          return n;
        }),
      );
  };

  if (!state.loaded) return <Spinner size="lg" aria-label="Loading operations" />;
  return (
    <>
      <ErrorAlert title="Cannot list operations" error={state.error} />
      <ErrorAlert title="Cancel failed" error={error} onClose={() => setError(undefined)} />
      {state.operations.length === 0 ? (
        <EmptyState titleText="No operations" headingLevel="h3" />
      ) : (
        <Table aria-label="Operations" variant="compact">
          <Thead>
            <Tr>
              <Th>Operation</Th>
              {showOwner && <Th>Object</Th>}
              <Th>Status</Th>
              <Th width={20}>Progress</Th>
              <Th>Started</Th>
              <Th>Duration</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {state.operations.map((op) => {
              const progress = describeProgress(op);
              const d = cancelDecision(op, access);
              const cancelButton = (
                <Button
                  variant="secondary"
                  size="sm"
                  data-action="cancel"
                  isAriaDisabled={!d.enabled || cancelling.has(op.id)}
                  isLoading={cancelling.has(op.id)}
                  onClick={() => cancel(op)}
                >
                  Cancel
                </Button>
              );
              return (
                <Tr key={op.id} data-operation={op.id}>
                  <Td dataLabel="Operation">
                    {op.uiURL ? (
                      <a href={op.uiURL} target="_blank" rel="noreferrer">
                        {op.type} <ExternalLinkAltIcon />
                      </a>
                    ) : (
                      op.type
                    )}
                  </Td>
                  {showOwner && (
                    <Td dataLabel="Object">
                      {op.owner ? `${op.owner.kind} ${op.owner.namespace ? `${op.owner.namespace}/` : ''}${op.owner.name ?? ''}` : '-'}
                    </Td>
                  )}
                  <Td dataLabel="Status">
                    <StatusLabel label={op.status} severity={operationSeverity(op.status)} />
                  </Td>
                  <Td dataLabel="Progress">
                    {progress.percent === undefined ? (
                      progress.text || '-'
                    ) : (
                      <Progress
                        value={progress.percent}
                        title={progress.text}
                        size="sm"
                        measureLocation={ProgressMeasureLocation.outside}
                        aria-label={`${op.type} progress`}
                        variant={op.status === 'Failed' ? 'danger' : op.status === 'Completed' ? 'success' : undefined}
                      />
                    )}
                  </Td>
                  <Td dataLabel="Started">{op.startTime ? `${age(op.startTime, now)} ago` : ''}</Td>
                  <Td dataLabel="Duration">{duration(op, now)}</Td>
                  <Td isActionCell>
                    {isRunning(op) && (d.reason ? <Tooltip content={d.reason}>{cancelButton}</Tooltip> : cancelButton)}
                  </Td>
                </Tr>
              );
            })}
          </Tbody>
        </Table>
      )}
    </>
  );
}
