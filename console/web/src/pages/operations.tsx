import { Label, PageSection, Title, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { NamespaceSelect, useNamespace } from '../components/namespace_select';
import { OperationsTable } from '../components/operations_table';
import { useOperations } from '../hooks';

// OperationsPage is every workflow the user may see, live: each one is a
// durable Temporal workflow, and its row links to its full history.
export function OperationsPage() {
  const [ns, setNs] = useNamespace();
  const ops = useOperations({ namespace: ns || undefined });
  return (
    <PageSection>
      <Title headingLevel="h1">Operations</Title>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <NamespaceSelect value={ns} onChange={setNs} />
          </ToolbarItem>
          <ToolbarItem alignSelf="center">
            <Label color={ops.live ? 'green' : 'grey'} isCompact>
              {ops.live ? 'Live' : 'Reconnecting'}
            </Label>
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <OperationsTable state={ops} />
    </PageSection>
  );
}
