import { EmptyState, Spinner } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { paths } from '../api';
import { ErrorAlert } from '../components/error_alert';
import { useNow, useWatchList } from '../hooks';
import { age } from '../model/age';
import type { KubeEvent } from '../model/types';

function lastSeen(e: KubeEvent): string | undefined {
  return e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata?.creationTimestamp;
}

export function VmEventsTab({ namespace, name }: { namespace: string; name: string }) {
  const events = useWatchList<KubeEvent>(paths.events(namespace, name));
  const now = useNow();
  if (!events.loaded && !events.error) return <Spinner size="lg" />;
  const sorted = [...events.items].sort((a, b) => (Date.parse(lastSeen(b) ?? '') || 0) - (Date.parse(lastSeen(a) ?? '') || 0));
  return (
    <>
      <ErrorAlert title="Cannot list events" error={events.error} />
      {sorted.length === 0 ? (
        <EmptyState titleText="No events" headingLevel="h3" />
      ) : (
        <Table aria-label="Events" variant="compact">
          <Thead>
            <Tr>
              <Th>Last seen</Th>
              <Th>Type</Th>
              <Th>Reason</Th>
              <Th>Object</Th>
              <Th>Message</Th>
            </Tr>
          </Thead>
          <Tbody>
            {sorted.map((e) => (
              <Tr key={e.metadata?.uid ?? e.metadata?.name}>
                <Td dataLabel="Last seen">{age(lastSeen(e), now)}</Td>
                <Td dataLabel="Type">{e.type}</Td>
                <Td dataLabel="Reason">{e.reason}</Td>
                <Td dataLabel="Object">{e.involvedObject?.kind}</Td>
                <Td dataLabel="Message">
                  {e.message}
                  {e.count && e.count > 1 ? ` (×${e.count})` : ''}
                </Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
    </>
  );
}
