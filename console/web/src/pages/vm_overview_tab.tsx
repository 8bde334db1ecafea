import {
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Grid,
  GridItem,
  Title,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useNow } from '../hooks';
import { age } from '../model/age';
import type { Condition, VirtualMachine, VirtualMachineInstance } from '../model/types';
import { firstIP } from '../model/vm_row';
import { vmSummary } from '../model/vm_summary';

function Field({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <DescriptionListGroup>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription>{children || '-'}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}

function Conditions({ title, conditions }: { title: string; conditions: Condition[] }) {
  if (!conditions.length) return null;
  return (
    <>
      <Title headingLevel="h3">{title}</Title>
      <Table aria-label={title} variant="compact">
        <Thead>
          <Tr>
            <Th>Type</Th>
            <Th>Status</Th>
            <Th>Reason</Th>
            <Th>Message</Th>
          </Tr>
        </Thead>
        <Tbody>
          {conditions.map((c) => (
            <Tr key={c.type}>
              <Td>{c.type}</Td>
              <Td>{c.status}</Td>
              <Td>{c.reason}</Td>
              <Td>{c.message}</Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </>
  );
}

export function VmOverviewTab({ vm, vmi }: { vm?: VirtualMachine; vmi?: VirtualMachineInstance }) {
  const now = useNow();
  const s = vmSummary(vm, vmi);
  const os = vmi?.status?.guestOSInfo;
  const meta = vm?.metadata ?? vmi?.metadata;
  return (
    <Grid hasGutter>
      <GridItem md={6}>
        <DescriptionList isHorizontal>
          <Field term="Namespace">{meta?.namespace}</Field>
          <Field term="Created">{meta?.creationTimestamp ? `${age(meta.creationTimestamp, now)} ago` : ''}</Field>
          <Field term="Instance type">{s.instancetype}</Field>
          <Field term="Preference">{s.preference}</Field>
          <Field term="CPU">{s.cpu}</Field>
          <Field term="Memory">{s.memory}</Field>
          <Field term="Run strategy">{vm?.spec?.runStrategy ?? (vm?.spec?.running === undefined ? '' : vm.spec.running ? 'Always' : 'Halted')}</Field>
        </DescriptionList>
      </GridItem>
      <GridItem md={6}>
        <DescriptionList isHorizontal>
          <Field term="Node">{vmi?.status?.nodeName}</Field>
          <Field term="IP address">{firstIP(vmi)}</Field>
          <Field term="Guest OS">{os?.prettyName || os?.name || (vmi ? 'guest agent not connected' : '')}</Field>
          <Field term="Kernel">{os?.kernelRelease}</Field>
        </DescriptionList>
      </GridItem>
      <GridItem md={6}>
        <Title headingLevel="h3">Disks</Title>
        <Table aria-label="Disks" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              <Th>Type</Th>
              <Th>Bus</Th>
              <Th>Source</Th>
            </Tr>
          </Thead>
          <Tbody>
            {s.disks.map((d) => (
              <Tr key={d.name}>
                <Td>{d.name}</Td>
                <Td>{d.type}</Td>
                <Td>{d.bus || 'default'}</Td>
                <Td>{d.source}</Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      </GridItem>
      <GridItem md={6}>
        <Title headingLevel="h3">Network interfaces</Title>
        <Table aria-label="Network interfaces" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              <Th>Model</Th>
              <Th>MAC address</Th>
              <Th>IP address</Th>
            </Tr>
          </Thead>
          <Tbody>
            {s.interfaces.map((i) => (
              <Tr key={i.name}>
                <Td>{i.name}</Td>
                <Td>{i.model}</Td>
                <Td>{i.mac}</Td>
                <Td>{i.ip}</Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      </GridItem>
      <GridItem md={6}>
        <Conditions title="VM conditions" conditions={vm?.status?.conditions ?? []} />
      </GridItem>
      <GridItem md={6}>
        <Conditions title="Instance conditions" conditions={vmi?.status?.conditions ?? []} />
      </GridItem>
    </Grid>
  );
}
