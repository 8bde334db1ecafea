import { useState } from 'react';
import {
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  EmptyState,
  EmptyStateBody,
  Grid,
  GridItem,
  Progress,
  ProgressMeasureLocation,
  Spinner,
} from '@patternfly/react-core';
import { ExpandableRowContent, Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { CancelMigrationButton } from '../components/cancel_migration_button';
import { ErrorAlert } from '../components/error_alert';
import { StatusLabel } from '../components/status_label';
import { useNow, useOperations } from '../hooks';
import { age } from '../model/age';
import {
  isFinalMigration,
  migrationPhase,
  migrationProgress,
  migrationSeverity,
  nodesOf,
  outcomeOf,
  sortMigrations,
  transitionsOf,
  type CopyView,
} from '../model/migrations';
import type { Operation } from '../model/operations';
import type { VirtualMachineInstanceMigration } from '../model/types';
import type { WatchedList } from '../watch';

const columns = 8;

function localTime(ts: string | undefined): string {
  const t = Date.parse(ts ?? '');
  return Number.isNaN(t) ? '' : new Date(t).toLocaleString();
}

function CopyCell({ view, running }: { view?: CopyView; running: boolean }) {
  if (!view) return <>{running ? 'waiting for the first report' : '-'}</>;
  if (view.percent === undefined) return <>{view.text}</>;
  return (
    <Progress value={view.percent} title={view.text} size="sm" measureLocation={ProgressMeasureLocation.outside} aria-label="Copy progress" />
  );
}

// Details are the phases a migration went through, each when it began,
// and its record's times and mode.
function Details({ m }: { m: VirtualMachineInstanceMigration }) {
  const s = m.status?.migrationState;
  const transitions = transitionsOf(m);
  return (
    <Grid hasGutter>
      <GridItem md={6}>
        <DescriptionList isHorizontal isCompact aria-label="Phase transitions">
          {transitions.map((t) => (
            <DescriptionListGroup key={t.phase}>
              <DescriptionListTerm>{t.phase}</DescriptionListTerm>
              <DescriptionListDescription>
                {localTime(t.at)} ({t.after})
              </DescriptionListDescription>
            </DescriptionListGroup>
          ))}
        </DescriptionList>
        {transitions.length === 0 && 'No phase recorded yet.'}
      </GridItem>
      <GridItem md={6}>
        <DescriptionList isHorizontal isCompact aria-label="Migration state">
          {(
            [
              ['Started', localTime(s?.startTimestamp)],
              ['Ended', localTime(s?.endTimestamp)],
              ['Mode', s?.mode],
              ['Policy', s?.migrationPolicyName],
              ['Source pod', s?.sourcePod || s?.sourceState?.pod],
              ['Target pod', s?.targetPod || s?.targetState?.pod],
            ] as const
          ).map(([term, value]) => (
            <DescriptionListGroup key={term}>
              <DescriptionListTerm>{term}</DescriptionListTerm>
              <DescriptionListDescription>{value || '-'}</DescriptionListDescription>
            </DescriptionListGroup>
          ))}
        </DescriptionList>
      </GridItem>
    </Grid>
  );
}

function MigrationRows(props: {
  m: VirtualMachineInstanceMigration;
  index: number;
  expanded: boolean;
  onToggle: () => void;
  ops: readonly Operation[];
  now: number;
  onError: (e: string | undefined) => void;
}) {
  const { m, index, expanded, onToggle, ops, now, onError } = props;
  const phase = migrationPhase(m);
  const { source, target } = nodesOf(m);
  return (
    <Tbody isExpanded={expanded}>
      <Tr data-migration={m.metadata?.name}>
        <Td expand={{ rowIndex: index, isExpanded: expanded, onToggle, expandId: 'migration' }} />
        <Td dataLabel="Migration">{m.metadata?.name}</Td>
        <Td dataLabel="Phase">
          <StatusLabel label={phase} severity={migrationSeverity(phase)} />
        </Td>
        <Td dataLabel="Nodes">{source || target ? `${source || '?'} → ${target || '?'}` : '-'}</Td>
        <Td dataLabel="Progress" width={25}>
          <CopyCell view={migrationProgress(m, ops)} running={phase === 'Running'} />
        </Td>
        <Td dataLabel="Created">{m.metadata?.creationTimestamp ? `${age(m.metadata.creationTimestamp, now)} ago` : ''}</Td>
        <Td dataLabel="Outcome">{outcomeOf(m) || '-'}</Td>
        <Td isActionCell>{!isFinalMigration(m) && <CancelMigrationButton migration={m} onError={onError} size="sm" />}</Td>
      </Tr>
      <Tr isExpanded={expanded}>
        <Td colSpan={columns}>
          <ExpandableRowContent>
            <Details m={m} />
          </ExpandableRowContent>
        </Td>
      </Tr>
    </Tbody>
  );
}

// VmMigrationsTab lists the VM's VirtualMachineInstanceMigrations, newest
// first and the newest opened on its phases; a running one shows its
// copy's progress from its workflow's memo, which the operations stream
// keeps current.
export function VmMigrationsTab({
  namespace,
  migrations,
}: {
  namespace: string;
  migrations: WatchedList<VirtualMachineInstanceMigration> & { items: VirtualMachineInstanceMigration[] };
}) {
  const ops = useOperations({ namespace, kind: 'VirtualMachineInstanceMigration' });
  const now = useNow();
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string>();
  if (!migrations.loaded && !migrations.error) return <Spinner size="lg" aria-label="Loading migrations" />;
  const sorted = sortMigrations(migrations.items);
  const toggle = (key: string) =>
    setToggled((s) => {
      const n = new Set(s);
      if (!n.delete(key)) n.add(key);
      return n;
    });
  return (
    <>
      <ErrorAlert title="Cannot list migrations" error={migrations.error} />
      <ErrorAlert title="Cannot read the migrations' progress" error={ops.error} />
      <ErrorAlert title="Cancel failed" error={error} onClose={() => setError(undefined)} />
      {sorted.length === 0 ? (
        <EmptyState titleText="No migrations" headingLevel="h3">
          <EmptyStateBody>Migrate moves the running VM to another node; each migration is listed here.</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label="Migrations" variant="compact">
          <Thead>
            <Tr>
              <Th screenReaderText="Details" />
              <Th>Migration</Th>
              <Th>Phase</Th>
              <Th>Source → target</Th>
              <Th>Progress</Th>
              <Th>Created</Th>
              <Th>Failure / abort</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          {sorted.map((m, i) => {
            const key = m.metadata?.uid ?? m.metadata?.name ?? String(i);
            return (
              <MigrationRows
                key={key}
                m={m}
                index={i}
                expanded={toggled.has(key) !== (i === 0)}
                onToggle={() => toggle(key)}
                ops={ops.operations}
                now={now}
                onError={setError}
              />
            );
          })}
        </Table>
      )}
    </>
  );
}
