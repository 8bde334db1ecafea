import { useEffect, useMemo, useState, type FormEvent } from 'react';
import {
  ActionGroup,
  Alert,
  Breadcrumb,
  BreadcrumbItem,
  Button,
  Checkbox,
  ExpandableSection,
  Form,
  FormGroup,
  FormHelperText,
  FormSelect,
  FormSelectOption,
  HelperText,
  HelperTextItem,
  PageSection,
  Radio,
  TextInput,
  Title,
} from '@patternfly/react-core';
import * as api from '../api';
import { NamespaceSelect } from '../components/namespace_select';
import { useAccess } from '../hooks';
import {
  buildVirtualMachine,
  emptyForm,
  formField,
  generateName,
  sourceDefaults,
  sourceOptions,
  validate,
  withSourceKind,
  type CreateVmForm,
  type DiskSourceKind,
  type FieldErrors,
  type FormField,
} from '../model/create_vm';
import { formErrors, type FormErrors } from '../model/create_vm_errors';
import { createVmCheck, decide } from '../model/permissions';
import { routeHash } from '../model/route';
import type { DataSource, KubeObject } from '../model/types';
import { useTemplateSource } from './create_vm_template';
import { useListOnce, type Listed } from './use_list_once';
import { YamlView } from './yaml_view';


const names = (items: KubeObject[]) =>
  items
    .map((o) => o.metadata?.name ?? '')
    .filter(Boolean)
    .sort();

// ClusterRefSelect offers the cluster's instance types or preferences; a
// user who may not list them (they are cluster-scoped) types a name.
function ClusterRefSelect({
  id,
  testId,
  label,
  listed,
  value,
  onChange,
  invalid,
}: {
  id: string;
  testId: string;
  label: string;
  listed: Listed<KubeObject>;
  value: string;
  onChange: (v: string) => void;
  invalid: boolean;
}) {
  const validated = invalid ? 'error' : 'default';
  if (listed.error) {
    return <TextInput id={id} data-testid={testId} aria-label={label} value={value} validated={validated} onChange={(_e, v) => onChange(v.trim())} />;
  }
  const options = names(listed.items);
  if (value && !options.includes(value)) options.unshift(value);
  return (
    <FormSelect id={id} data-testid={testId} aria-label={label} value={value} validated={validated} onChange={(_e, v) => onChange(v)}>
      <FormSelectOption value="" label={listed.loaded ? 'None' : 'Loading…'} />
      {options.map((n) => (
        <FormSelectOption key={n} value={n} label={n} />
      ))}
    </FormSelect>
  );
}

function Helper({ messages, hint }: { messages: string[]; hint?: string }) {
  if (!messages.length && !hint) return null;
  return (
    <FormHelperText>
      <HelperText>
        {messages.length
          ? messages.map((m) => (
              <HelperTextItem key={m} variant="error">
                {m}
              </HelperTextItem>
            ))
          : hint && <HelperTextItem>{hint}</HelperTextItem>}
      </HelperText>
    </FormHelperText>
  );
}

export function CreateVmPage({ namespace }: { namespace: string }) {
  const [form, setForm] = useState<CreateVmForm>(() => emptyForm(namespace, generateName('')));
  // Fields the user set stay as set; the others follow the boot source's
  // suggestions.
  const [touched, setTouched] = useState<Partial<Record<keyof CreateVmForm, boolean>>>({});
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const [serverErrors, setServerErrors] = useState<FormErrors>();
  const [submitting, setSubmitting] = useState(false);
  // A template brings its own VM definition, so the form's other fields
  // give way to its parameters.
  const [fromTemplate, setFromTemplate] = useState(false);
  const templateSource = useTemplateSource(form.namespace, Helper, fromTemplate);

  const instancetypes = useListOnce<KubeObject>(api.paths.clusterInstancetypes());
  const preferences = useListOnce<KubeObject>(api.paths.clusterPreferences());
  const dataSources = useListOnce<DataSource>(api.paths.dataSources());
  const options = useMemo(() => sourceOptions(dataSources.items), [dataSources.items]);

  const checks = useMemo(() => (form.namespace ? [createVmCheck(form.namespace)] : []), [form.namespace]);
  const access = useAccess(checks);
  const allowed = form.namespace
    ? decide(undefined, createVmCheck(form.namespace), access)
    : { enabled: false, reason: 'Choose a namespace' };

  // An edited field's errors are about a value no longer there.
  const clearErrors = (field: FormField) => {
    setClientErrors((e) => ({ ...e, [field]: undefined }));
    setServerErrors((e) => (e ? { ...e, fields: { ...e.fields, [field]: undefined } } : e));
  };
  const set = <K extends keyof CreateVmForm>(k: K, v: CreateVmForm[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setTouched((t) => ({ ...t, [k]: true }));
    clearErrors(formField(k));
  };

  const chooseDataSource = (value: string) => {
    const opt = options.find((o) => o.value === value);
    const d = sourceDefaults(opt?.labels);
    clearErrors('source');
    setForm((f) => ({
      ...f,
      dataSource: value,
      name: touched.name ? f.name : generateName(value.split('/')[1] ?? ''),
      instancetype: !touched.instancetype && d.instancetype ? d.instancetype : f.instancetype,
      preference: !touched.preference && d.preference ? d.preference : f.preference,
    }));
  };

  // The first ready source is proposed, as the OpenShift console does, so a
  // cluster with boot sources creates a VM in two clicks.
  useEffect(() => {
    if (!form.dataSource && form.sourceKind === 'dataSource' && options[0]?.ready) chooseDataSource(options[0].value);
    // Only the arrival of the list should propose.
  }, [options]);

  const errorsFor = (f: FormField): string[] => [...(clientErrors[f] ? [clientErrors[f]!] : []), ...(serverErrors?.fields[f] ?? [])];
  const invalid = (f: FormField) => errorsFor(f).length > 0;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Enter in a field submits even when the button is only aria-disabled.
    if (!allowed.enabled || submitting) return;
    if (fromTemplate) {
      setClientErrors(form.namespace ? {} : { namespace: 'Choose a namespace.' });
      setServerErrors(undefined);
      if (!form.namespace) return;
      setSubmitting(true);
      void templateSource.submit().then((vm) => {
        if (vm) location.hash = routeHash({ page: 'vm', namespace: vm.namespace, name: vm.name, tab: 'overview' });
        else setSubmitting(false);
      });
      return;
    }
    const v = validate(form);
    setClientErrors(v);
    setServerErrors(undefined);
    if (Object.keys(v).length) return;
    setSubmitting(true);
    api
      .createVm(buildVirtualMachine(form))
      .then((vm) => {
        location.hash = routeHash({
          page: 'vm',
          namespace: vm?.metadata?.namespace ?? form.namespace,
          name: vm?.metadata?.name ?? form.name,
          tab: 'overview',
        });
      })
      .catch((err: unknown) => {
        setSubmitting(false);
        setServerErrors(formErrors(err instanceof api.ApiError ? err.body : undefined, err instanceof Error ? err.message : String(err)));
      });
  };

  const sourceKinds: { kind: DiskSourceKind; label: string }[] = [
    { kind: 'dataSource', label: 'Boot source (DataSource)' },
    { kind: 'http', label: 'Import from a URL' },
    { kind: 'containerDisk', label: 'Container disk image' },
  ];
  const clientCount = Object.values(clientErrors).filter(Boolean).length + (fromTemplate && templateSource.hasFieldErrors ? 1 : 0);
  const generalErrors = fromTemplate ? templateSource.general : (serverErrors?.general ?? []);

  return (
    <PageSection>
      <Breadcrumb>
        <BreadcrumbItem to={routeHash({ page: 'vms' })}>Virtual machines</BreadcrumbItem>
        <BreadcrumbItem isActive>Create</BreadcrumbItem>
      </Breadcrumb>
      <Title headingLevel="h1">Create VirtualMachine</Title>
      {generalErrors.length > 0 && (
        <Alert variant="danger" isInline title="The VirtualMachine was not created" data-testid="create-vm-error" style={{ margin: 'var(--pf-t--global--spacer--md) 0' }}>
          {generalErrors.map((m) => (
            <div key={m}>{m}</div>
          ))}
        </Alert>
      )}
      {clientCount > 0 && (
        <Alert variant="danger" isInline title="Correct the fields marked below" data-testid="create-vm-invalid" style={{ margin: 'var(--pf-t--global--spacer--md) 0' }} />
      )}
      <Form onSubmit={submit} maxWidth="48em" data-testid="create-vm-form">
        <FormGroup label="Namespace" isRequired fieldId="create-vm-namespace">
          <NamespaceSelect id="create-vm-namespace" testId="create-vm-namespace" allowAll={false} value={form.namespace} onChange={(v) => set('namespace', v)} />
          <Helper messages={errorsFor('namespace')} />
        </FormGroup>
        {!fromTemplate && (
        <FormGroup label="Name" isRequired fieldId="create-vm-name">
          <TextInput
            id="create-vm-name"
            data-testid="create-vm-name"
            value={form.name}
            validated={invalid('name') ? 'error' : 'default'}
            onChange={(_e, v) => set('name', v.trim())}
          />
          <Helper messages={errorsFor('name')} />
        </FormGroup>
        )}

        <FormGroup label="Boot disk" isRequired role="radiogroup" fieldId="create-vm-source" isStack>
          <div data-testid="create-vm-source">
            {sourceKinds.map((s) => (
              <Radio
                key={s.kind}
                id={`create-vm-source-${s.kind}`}
                data-testid={`create-vm-source-${s.kind}`}
                name="create-vm-source"
                label={s.label}
                isChecked={!fromTemplate && form.sourceKind === s.kind}
                onChange={() => {
                  setFromTemplate(false);
                  setForm((f) => withSourceKind(f, s.kind, !!touched.diskSize));
                  setTouched((t) => ({ ...t, sourceKind: true }));
                  clearErrors('source');
                  clearErrors('diskSize');
                }}
              />
            ))}
            <Radio
              id="create-vm-source-template"
              data-testid="create-vm-source-template"
              name="create-vm-source"
              label="Template"
              isChecked={fromTemplate}
              onChange={() => setFromTemplate(true)}
            />
          </div>
          {fromTemplate && templateSource.fields}
          {!fromTemplate && form.sourceKind === 'dataSource' &&
            (dataSources.error ? (
              <TextInput
                aria-label="DataSource as namespace/name"
                data-testid="create-vm-datasource"
                placeholder="namespace/name"
                value={form.dataSource}
                validated={invalid('source') ? 'error' : 'default'}
                onChange={(_e, v) => chooseDataSource(v.trim())}
              />
            ) : (
              <FormSelect
                aria-label="DataSource"
                data-testid="create-vm-datasource"
                value={form.dataSource}
                validated={invalid('source') ? 'error' : 'default'}
                onChange={(_e, v) => chooseDataSource(v)}
              >
                <FormSelectOption value="" label={!dataSources.loaded ? 'Loading…' : options.length ? 'Choose a boot source' : 'No DataSources'} isPlaceholder />
                {options.map((o) => (
                  <FormSelectOption key={o.value} value={o.value} label={o.label} />
                ))}
              </FormSelect>
            ))}
          {!fromTemplate && form.sourceKind === 'http' && (
            <TextInput
              aria-label="Disk image URL"
              data-testid="create-vm-url"
              type="url"
              placeholder="https://example.org/disk.qcow2"
              value={form.url}
              validated={invalid('source') ? 'error' : 'default'}
              onChange={(_e, v) => set('url', v)}
            />
          )}
          {!fromTemplate && form.sourceKind === 'containerDisk' && (
            <TextInput
              aria-label="Container disk image"
              data-testid="create-vm-image"
              placeholder="quay.io/containerdisks/fedora:latest"
              value={form.image}
              validated={invalid('source') ? 'error' : 'default'}
              onChange={(_e, v) => set('image', v)}
            />
          )}
          <Helper
            messages={errorsFor('source')}
            hint={
              fromTemplate
                ? undefined
                : form.sourceKind === 'dataSource' && dataSources.error
                ? `DataSources cannot be listed (${dataSources.error}); enter one as namespace/name.`
                : form.sourceKind === 'containerDisk'
                  ? 'A container disk is ephemeral: changes are lost when the VM stops.'
                  : undefined
            }
          />
        </FormGroup>
        {!fromTemplate && form.sourceKind !== 'containerDisk' && (
          <FormGroup label="Disk size" isRequired={form.sourceKind === 'http'} fieldId="create-vm-disksize">
            <TextInput
              id="create-vm-disksize"
              data-testid="create-vm-disksize"
              value={form.diskSize}
              validated={invalid('diskSize') ? 'error' : 'default'}
              onChange={(_e, v) => set('diskSize', v.trim())}
            />
            <Helper messages={errorsFor('diskSize')} hint={form.sourceKind === 'dataSource' ? "Leave empty to use the source's size." : undefined} />
          </FormGroup>
        )}

        {!fromTemplate && (
        <>
        <FormGroup label="Instance type" fieldId="create-vm-instancetype">
          <ClusterRefSelect
            id="create-vm-instancetype"
            testId="create-vm-instancetype"
            label="Instance type"
            listed={instancetypes}
            value={form.instancetype}
            onChange={(v) => set('instancetype', v)}
            invalid={invalid('instancetype')}
          />
          <Helper messages={errorsFor('instancetype')} hint={instancetypes.error ? `Instance types cannot be listed: ${instancetypes.error}` : undefined} />
        </FormGroup>
        {!form.instancetype && (
          <FormGroup label="Memory" isRequired fieldId="create-vm-memory">
            <TextInput
              id="create-vm-memory"
              data-testid="create-vm-memory"
              value={form.memory}
              validated={invalid('memory') ? 'error' : 'default'}
              onChange={(_e, v) => set('memory', v.trim())}
            />
            <Helper messages={errorsFor('memory')} hint="Without an instance type the VM needs its memory set." />
          </FormGroup>
        )}
        <FormGroup label="Preference" fieldId="create-vm-preference">
          <ClusterRefSelect
            id="create-vm-preference"
            testId="create-vm-preference"
            label="Preference"
            listed={preferences}
            value={form.preference}
            onChange={(v) => set('preference', v)}
            invalid={invalid('preference')}
          />
          <Helper messages={errorsFor('preference')} hint={preferences.error ? `Preferences cannot be listed: ${preferences.error}` : undefined} />
        </FormGroup>

        <FormGroup fieldId="create-vm-start">
          <Checkbox
            id="create-vm-start"
            data-testid="create-vm-start"
            label="Start the VirtualMachine after creation"
            isChecked={form.start}
            onChange={(_e, v) => set('start', v)}
          />
          <Helper messages={errorsFor('start')} />
        </FormGroup>

        <ExpandableSection toggleText="Show the VirtualMachine as it will be sent" data-testid="create-vm-yaml">
          <YamlView object={buildVirtualMachine(form)} />
        </ExpandableSection>

        </>
        )}
        <ActionGroup>
          <Button
            type="submit"
            variant="primary"
            data-testid="create-vm-submit"
            isDisabled={submitting}
            isAriaDisabled={!allowed.enabled}
            isLoading={submitting}
          >
            Create
          </Button>
          <Button variant="link" component="a" href={routeHash({ page: 'vms' })} data-testid="create-vm-cancel">
            Cancel
          </Button>
        </ActionGroup>
        {!allowed.enabled && allowed.reason && <Helper messages={[]} hint={allowed.reason} />}
      </Form>
    </PageSection>
  );
}
