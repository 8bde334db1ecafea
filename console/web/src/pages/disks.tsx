import { useState } from 'react';
import {
  Button,
  EmptyState,
  PageSection,
  Progress,
  ProgressMeasureLocation,
  Spinner,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { paths } from '../api';
import { ErrorAlert } from '../components/error_alert';
import { NamespaceSelect, useNamespace } from '../components/namespace_select';
import { useNow, useWatchList } from '../hooks';
import { age } from '../model/age';
import { diskProgress } from '../model/progress';
import type { DataVolume } from '../model/types';
import { UploadDisk } from './disk_upload';

// sourceOf names what a DataVolume imports, clones or uploads from.
function sourceOf(dv: DataVolume): string {
  const ref = dv.spec?.sourceRef;
  if (ref?.name) return `${ref.kind ?? 'DataSource'} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
  const [kind, s] = Object.entries(dv.spec?.source ?? {})[0] ?? [];
  if (!kind) return '';
  if (s?.url) return `${kind} ${s.url}`;
  if (s?.name) return `${kind} ${s.namespace ? `${s.namespace}/` : ''}${s.name}`;
  return kind;
}

export function DisksPage() {
  const [ns, setNs] = useNamespace();
  const dvs = useWatchList<DataVolume>(paths.dataVolumes(ns || undefined));
  const now = useNow();
  const [uploading, setUploading] = useState(false);
  return (
    <PageSection>
      <Title headingLevel="h1">Disks (DataVolumes)</Title>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <NamespaceSelect value={ns} onChange={setNs} />
          </ToolbarItem>
          <ToolbarItem>
            <Button variant="secondary" data-testid="upload-button" isDisabled={uploading} onClick={() => setUploading(true)}>
              Upload
            </Button>
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      {uploading && <UploadDisk namespace={ns} onClose={() => setUploading(false)} />}
      <ErrorAlert title="Cannot list DataVolumes" error={dvs.error} />
      {!dvs.loaded && !dvs.error ? (
        <Spinner size="lg" aria-label="Loading disks" />
      ) : dvs.items.length === 0 ? (
        <EmptyState titleText="No DataVolumes" headingLevel="h2" />
      ) : (
        <Table aria-label="DataVolumes" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              {!ns && <Th>Namespace</Th>}
              <Th>Phase</Th>
              <Th width={25}>Progress</Th>
              <Th>Size</Th>
              <Th>Source</Th>
              <Th>Age</Th>
            </Tr>
          </Thead>
          <Tbody>
            {dvs.items.map((dv) => {
              const p = diskProgress(dv);
              const size = dv.spec?.storage?.resources?.requests?.storage ?? dv.spec?.pvc?.resources?.requests?.storage;
              const key = `${dv.metadata?.namespace}/${dv.metadata?.name}`;
              return (
                <Tr key={key} data-datavolume={key}>
                  <Td dataLabel="Name">{dv.metadata?.name}</Td>
                  {!ns && <Td dataLabel="Namespace">{dv.metadata?.namespace}</Td>}
                  <Td dataLabel="Phase">{p.phase}</Td>
                  <Td dataLabel="Progress">
                    {p.percent === undefined ? (
                      '-'
                    ) : (
                      <Progress
                        value={p.percent}
                        size="sm"
                        measureLocation={ProgressMeasureLocation.outside}
                        variant={p.variant}
                        aria-label={`${dv.metadata?.name} progress`}
                        data-progress={p.percent}
                      />
                    )}
                  </Td>
                  <Td dataLabel="Size">{size ?? '-'}</Td>
                  <Td dataLabel="Source">{sourceOf(dv) || '-'}</Td>
                  <Td dataLabel="Age">{age(dv.metadata?.creationTimestamp, now)}</Td>
                </Tr>
              );
            })}
          </Tbody>
        </Table>
      )}
    </PageSection>
  );
}
