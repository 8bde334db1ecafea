import { useState } from 'react';
import {
  Breadcrumb,
  BreadcrumbItem,
  Flex,
  FlexItem,
  PageSection,
  Spinner,
  Tab,
  Tabs,
  TabTitleText,
  Title,
} from '@patternfly/react-core';
import * as api from '../api';
import { ErrorAlert } from '../components/error_alert';
import { OperationsTable } from '../components/operations_table';
import { SerialConsole } from '../components/serial_console';
import { StatusLabel } from '../components/status_label';
import { VmActionBar } from '../components/vm_action_bar';
import { VncConsole } from '../components/vnc_console';
import { CancelMigrationButton } from '../components/cancel_migration_button';
import { useNow, useOperations, useWatchList, useWatchedObject } from '../hooks';
import { activeMigration } from '../model/migrations';
import { routeHash, type VmTab } from '../model/route';
import type { VirtualMachine, VirtualMachineInstance, VirtualMachineInstanceMigration } from '../model/types';
import { vmRows } from '../model/vm_row';
import { VmEventsTab } from './vm_events_tab';
import { VmMigrationsTab } from './vm_migrations_tab';
import { VmOverviewTab } from './vm_overview_tab';
import { editVmCheck } from '../model/permissions';
import { YamlEditor } from './yaml_edit';

const tabTitles: Record<VmTab, string> = {
  overview: 'Overview',
  yaml: 'YAML',
  events: 'Events',
  migrations: 'Migrations',
  operations: 'Operations',
  console: 'Console',
  vnc: 'VNC',
};

export function VmDetailsPage({ namespace, name, tab }: { namespace: string; name: string; tab: VmTab }) {
  const vm = useWatchedObject<VirtualMachine>(api.paths.vms(namespace), name);
  const vmi = useWatchedObject<VirtualMachineInstance>(api.paths.vmis(namespace), name);
  // The VMI's migrations: the tab lists them, the header cancels the one
  // in flight.
  const migrations = useWatchList<VirtualMachineInstanceMigration>(api.paths.vmimsOf(namespace, name));
  const inFlight = activeMigration(migrations.items);
  const now = useNow();
  const [actionError, setActionError] = useState<string>();
  const row = vmRows(vm.object ? [vm.object] : [], vmi.object ? [vmi.object] : [], now)[0];
  const go = (t: VmTab) => {
    location.hash = routeHash({ page: 'vm', namespace, name, tab: t });
  };
  const running = vmi.object?.status?.phase === 'Running';

  return (
    <>
      <PageSection>
        <Breadcrumb>
          <BreadcrumbItem to={routeHash({ page: 'vms' })}>Virtual machines</BreadcrumbItem>
          <BreadcrumbItem>{namespace}</BreadcrumbItem>
          <BreadcrumbItem isActive>{name}</BreadcrumbItem>
        </Breadcrumb>
        <Flex alignItems={{ default: 'alignItemsCenter' }} style={{ marginTop: 'var(--pf-t--global--spacer--md)' }}>
          <FlexItem>
            <Title headingLevel="h1">{name}</Title>
          </FlexItem>
          <FlexItem>{row && <StatusLabel {...row.status} />}</FlexItem>
          <FlexItem align={{ default: 'alignRight' }}>
            <VmActionBar row={row} onError={setActionError} />
            {inFlight && <CancelMigrationButton migration={inFlight} onError={setActionError} />}
          </FlexItem>
        </Flex>
        <ErrorAlert title="Action failed" error={actionError} onClose={() => setActionError(undefined)} />
        <ErrorAlert title="Cannot read the virtual machine" error={vm.error} />
        {vm.loaded && !vm.object && !vmi.object && (
          <ErrorAlert title="Not found" error={`No virtual machine ${name} in namespace ${namespace}.`} />
        )}
      </PageSection>
      <PageSection>
        <Tabs activeKey={tab} onSelect={(_e, k) => go(k as VmTab)} aria-label="Virtual machine details" mountOnEnter unmountOnExit>
          {(Object.keys(tabTitles) as VmTab[]).map((t) => (
            <Tab key={t} eventKey={t} title={<TabTitleText>{tabTitles[t]}</TabTitleText>}>
              <div style={{ paddingTop: 'var(--pf-t--global--spacer--md)' }}>
                {!vm.loaded ? (
                  <Spinner size="lg" />
                ) : t === 'overview' ? (
                  <VmOverviewTab vm={vm.object} vmi={vmi.object} />
                ) : t === 'yaml' ? (
                  <YamlEditor
                    object={vm.object}
                    type={{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine' }}
                    path={api.paths.vms(namespace, name)}
                    check={editVmCheck(namespace, name)}
                  />
                ) : t === 'events' ? (
                  <VmEventsTab namespace={namespace} name={name} />
                ) : t === 'migrations' ? (
                  <VmMigrationsTab namespace={namespace} migrations={migrations} />
                ) : t === 'operations' ? (
                  <VmOperationsTab namespace={namespace} name={name} />
                ) : t === 'console' ? (
                  <SerialConsole namespace={namespace} name={name} running={running} />
                ) : (
                  <VncConsole namespace={namespace} name={name} running={running} />
                )}
              </div>
            </Tab>
          ))}
        </Tabs>
      </PageSection>
    </>
  );
}

function VmOperationsTab({ namespace, name }: { namespace: string; name: string }) {
  const ops = useOperations({ namespace, kind: 'VirtualMachine', name });
  return <OperationsTable state={ops} showOwner={false} />;
}
