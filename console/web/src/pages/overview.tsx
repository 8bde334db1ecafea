import { Card, CardBody, CardTitle, Gallery, PageSection, Title } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { paths } from '../api';
import { StatusLabel } from '../components/status_label';
import { useWatchList } from '../hooks';
import type { Severity } from '../model/status';
import type { Condition, KubeObject, VirtualMachineInstance } from '../model/types';

interface HyperConverged extends KubeObject {
  status?: { conditions?: Condition[] };
}
interface Node extends KubeObject {
  status?: { conditions?: Condition[] };
}

// HyperConverged reports health in conditions where True is bad for some
// (Degraded) and good for others (Available).
function conditionSeverity(c: Condition): Severity {
  const badWhenTrue = c.type === 'Degraded' || c.type === 'Progressing';
  const good = (c.status === 'True') !== badWhenTrue;
  if (c.type === 'Progressing' && c.status === 'True') return 'info';
  return good ? 'success' : 'danger';
}

function Unavailable({ error }: { error?: string }) {
  return <p>{error ? `Not available to you: ${error}` : 'Loading…'}</p>;
}

export function OverviewPage() {
  const hcos = useWatchList<HyperConverged>(paths.hyperConvergeds());
  const nodes = useWatchList<Node>(paths.nodes());
  const vmis = useWatchList<VirtualMachineInstance>(paths.vmis());
  const perNode = new Map<string, number>();
  for (const v of vmis.items) {
    const n = v.status?.nodeName;
    if (n) perNode.set(n, (perNode.get(n) ?? 0) + 1);
  }
  return (
    <PageSection>
      <Title headingLevel="h1">Overview</Title>
      <Gallery hasGutter minWidths={{ default: '28em' }} style={{ marginTop: 'var(--pf-t--global--spacer--md)' }}>
        <Card>
          <CardTitle>Platform health (HyperConverged)</CardTitle>
          <CardBody>
            {!hcos.loaded ? (
              <Unavailable error={hcos.error} />
            ) : hcos.items.length === 0 ? (
              <p>No HyperConverged resource.</p>
            ) : (
              hcos.items.map((h) => (
                <Table key={h.metadata?.name} aria-label="HyperConverged conditions" variant="compact">
                  <Thead>
                    <Tr>
                      <Th>Condition</Th>
                      <Th>Status</Th>
                      <Th>Message</Th>
                    </Tr>
                  </Thead>
                  <Tbody>
                    {(h.status?.conditions ?? []).map((c) => (
                      <Tr key={c.type}>
                        <Td>{c.type}</Td>
                        <Td>
                          <StatusLabel label={c.status} severity={conditionSeverity(c)} />
                        </Td>
                        <Td>{c.message || c.reason}</Td>
                      </Tr>
                    ))}
                  </Tbody>
                </Table>
              ))
            )}
          </CardBody>
        </Card>
        <Card>
          <CardTitle>Nodes</CardTitle>
          <CardBody>
            {!nodes.loaded ? (
              <Unavailable error={nodes.error} />
            ) : (
              <Table aria-label="Nodes" variant="compact">
                <Thead>
                  <Tr>
                    <Th>Node</Th>
                    <Th>Ready</Th>
                    <Th>Running VMs</Th>
                  </Tr>
                </Thead>
                <Tbody>
                  {nodes.items.map((n) => {
                    const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
                    const name = n.metadata?.name ?? '';
                    return (
                      <Tr key={name}>
                        <Td>{name}</Td>
                        <Td>
                          <StatusLabel label={ready ? 'Ready' : 'NotReady'} severity={ready ? 'success' : 'danger'} />
                        </Td>
                        <Td>{vmis.loaded ? (perNode.get(name) ?? 0) : '-'}</Td>
                      </Tr>
                    );
                  })}
                </Tbody>
              </Table>
            )}
          </CardBody>
        </Card>
      </Gallery>
    </PageSection>
  );
}
