import { useMemo, useState } from 'react';
import {
  Button,
  EmptyState,
  EmptyStateBody,
  PageSection,
  SearchInput,
  Spinner,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
  Tooltip,
} from '@patternfly/react-core';
import { ActionsColumn, Table, Tbody, Td, Th, Thead, Tr, type IAction } from '@patternfly/react-table';
import * as api from '../api';
import { ErrorAlert } from '../components/error_alert';
import { NamespaceSelect, useNamespace } from '../components/namespace_select';
import { StatusLabel } from '../components/status_label';
import { ConfirmDelete } from '../components/vm_action_bar';
import { useAccess, useNow, useWatchList } from '../hooks';
import { createVmCheck, decide, vmActionCheck } from '../model/permissions';
import { routeHash } from '../model/route';
import type { VirtualMachine, VirtualMachineInstance } from '../model/types';
import { actionLabels, applicable, vmActions, type VmAction } from '../model/vm_actions';
import { matchesFilter, vmRows, type VmRow } from '../model/vm_row';

export function VmListPage() {
  const [ns, setNs] = useNamespace();
  const [filter, setFilter] = useState('');
  const [actionError, setActionError] = useState<string>();
  const [toDelete, setToDelete] = useState<VmRow>();
  const vms = useWatchList<VirtualMachine>(api.paths.vms(ns || undefined));
  const vmis = useWatchList<VirtualMachineInstance>(api.paths.vmis(ns || undefined));
  const now = useNow();

  const rows = useMemo(() => vmRows(vms.items, vmis.items, now), [vms.items, vmis.items, now]);
  const shown = rows.filter((r) => matchesFilter(r, filter));
  // One access request for every row's actions, rather than one per row.
  // With all namespaces shown, the form asks about the namespace chosen
  // there; here only the one on screen can be asked about.
  const checks = useMemo(
    () => [...(ns ? [createVmCheck(ns)] : []), ...shown.flatMap((r) => vmActions.map((a) => vmActionCheck(a, r.namespace, r.name)))],
    [shown, ns],
  );
  const access = useAccess(checks);

  const perform = (r: VmRow, a: VmAction) => {
    setActionError(undefined);
    api.vmAction(a, r.namespace, r.name).catch((e: unknown) => {
      setActionError(`${actionLabels[a]} ${r.name}: ${e instanceof Error ? e.message : String(e)}`);
    });
  };
  const create = ns ? decide(undefined, createVmCheck(ns), access) : { enabled: true };
  const createButton = (
    <Button
      variant="primary"
      component="a"
      href={routeHash({ page: 'create-vm', namespace: ns })}
      data-testid="create-vm-button"
      isAriaDisabled={!create.enabled}
    >
      Create VirtualMachine
    </Button>
  );
  const rowActions = (r: VmRow): IAction[] =>
    vmActions.map((a) => {
      const d = decide(applicable(a, r.status, !!r.vmi), vmActionCheck(a, r.namespace, r.name), access);
      return {
        title: actionLabels[a],
        isAriaDisabled: !d.enabled,
        tooltipProps: d.reason ? { content: d.reason } : undefined,
        onClick: () => (a === 'delete' ? setToDelete(r) : perform(r, a)),
      };
    });

  return (
    <PageSection>
      <Title headingLevel="h1">Virtual machines</Title>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <NamespaceSelect value={ns} onChange={setNs} />
          </ToolbarItem>
          <ToolbarItem>
            <SearchInput
              aria-label="Filter virtual machines"
              placeholder="Filter by name, status, node or IP"
              value={filter}
              onChange={(_e, v) => setFilter(v)}
              onClear={() => setFilter('')}
            />
          </ToolbarItem>
          <ToolbarItem>{create.reason ? <Tooltip content={create.reason}>{createButton}</Tooltip> : createButton}</ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert title="Action failed" error={actionError} onClose={() => setActionError(undefined)} />
      <ErrorAlert title="Cannot list virtual machines" error={vms.error} />
      {!vms.loaded && !vms.error ? (
        <Spinner size="lg" aria-label="Loading virtual machines" />
      ) : shown.length === 0 ? (
        <EmptyState titleText={rows.length ? 'No virtual machine matches the filter' : 'No virtual machines'} headingLevel="h2">
          <EmptyStateBody>
            {rows.length ? 'Clear the filter to see them all.' : `There are no virtual machines ${ns ? `in ${ns}` : 'you may list'}.`}
          </EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label="Virtual machines" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              {!ns && <Th>Namespace</Th>}
              <Th>Status</Th>
              <Th>Node</Th>
              <Th>IP address</Th>
              <Th>Age</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {shown.map((r) => (
              <Tr key={r.key} data-vm={r.key}>
                <Td dataLabel="Name">
                  <a href={routeHash({ page: 'vm', namespace: r.namespace, name: r.name, tab: 'overview' })}>{r.name}</a>
                </Td>
                {!ns && <Td dataLabel="Namespace">{r.namespace}</Td>}
                <Td dataLabel="Status">
                  <StatusLabel {...r.status} />
                </Td>
                <Td dataLabel="Node">{r.node || '-'}</Td>
                <Td dataLabel="IP address">{r.ip || '-'}</Td>
                <Td dataLabel="Age">{r.age}</Td>
                <Td isActionCell>
                  <ActionsColumn items={rowActions(r)} />
                </Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
      {toDelete && (
        <ConfirmDelete
          name={toDelete.name}
          onClose={() => setToDelete(undefined)}
          onConfirm={() => {
            perform(toDelete, 'delete');
            setToDelete(undefined);
          }}
        />
      )}
    </PageSection>
  );
}
