// The create page's "Template" source: pick a template, fill its
// parameters, and create the VirtualMachines it processes into.

import { useEffect, useMemo, useState, type ReactElement } from 'react';
import { FormGroup, FormSelect, FormSelectOption, TextInput } from '@patternfly/react-core';
import * as api from '../api';
import { formErrors } from '../model/create_vm_errors';
import type { KubeObject } from '../model/types';
import { useListOnce } from './use_list_once';
import {
  initialValues,
  paramFields,
  parametersToSend,
  processErrors,
  templateOptions,
  validateParams,
  virtualMachinesOf,
  type ParamField,
  type Template,
} from '../model/template';

// Templates from the openshift namespace are the shared VM templates, which
// carry this label; a namespace's own are all offered.
const baseSelector = 'template.kubevirt.io/type=base';


export interface TemplateSource {
  fields: ReactElement;
  // submit answers the first created VM, or undefined when the form or the
  // server refused; errors are then shown by the fields and in general.
  submit: () => Promise<{ namespace: string; name: string } | undefined>;
  general: string[];
  hasFieldErrors: boolean;
}

type Helper = (p: { messages: string[]; hint?: string }) => ReactElement | null;

// Templates are listed only once the user picks the mode: a cluster without
// OpenShift's template API would otherwise answer every visit with a 404.
export function useTemplateSource(namespace: string, Helper: Helper, enabled: boolean): TemplateSource {
  const shared = useListOnce<Template>(enabled ? api.paths.templates('openshift', baseSelector) : null);
  const own = useListOnce<Template>(enabled && namespace && namespace !== 'openshift' ? api.paths.templates(namespace) : null);
  const options = useMemo(() => templateOptions(own.items, shared.items), [own.items, shared.items]);
  const [chosen, setChosen] = useState('');
  const template = useMemo(
    () => [...own.items, ...shared.items].find((t) => `${t.metadata?.namespace}/${t.metadata?.name}` === chosen),
    [chosen, own.items, shared.items],
  );
  const fields = useMemo<ParamField[]>(() => paramFields(template), [template]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const [general, setGeneral] = useState<string[]>([]);
  const [templateError, setTemplateError] = useState('');

  useEffect(() => {
    setValues(initialValues(fields));
    setClientErrors({});
    setServerErrors({});
    setGeneral([]);
  }, [fields]);

  const setValue = (name: string, v: string) => {
    setValues((vs) => ({ ...vs, [name]: v }));
    setClientErrors((e) => ({ ...e, [name]: '' }));
    setServerErrors((e) => ({ ...e, [name]: [] }));
  };
  const errorsFor = (name: string) => [...(clientErrors[name] ? [clientErrors[name]] : []), ...(serverErrors[name] ?? [])];

  const listError = [shared.error && `openshift: ${shared.error}`, own.error && `${namespace}: ${own.error}`].filter(Boolean).join('; ');
  const loaded = shared.loaded && (own.loaded || !namespace || namespace === 'openshift');

  const submit = async (): Promise<{ namespace: string; name: string } | undefined> => {
    setGeneral([]);
    setServerErrors({});
    if (!template || !chosen) {
      setTemplateError('Choose a template.');
      return undefined;
    }
    const v = validateParams(fields, values);
    setClientErrors(v);
    if (Object.keys(v).length) return undefined;
    const [tns, tname] = chosen.split('/');
    let processed: Awaited<ReturnType<typeof api.processTemplate>>;
    try {
      processed = await api.processTemplate(tns, tname, parametersToSend(fields, values));
    } catch (err) {
      const e = processErrors(err instanceof api.ApiError ? err.body : undefined, err instanceof Error ? err.message : String(err), fields);
      setServerErrors(e.params);
      setGeneral(e.general);
      return undefined;
    }
    const vms = virtualMachinesOf(processed, namespace);
    if (!vms.length) {
      setGeneral([`Template ${chosen} holds no VirtualMachine.`]);
      return undefined;
    }
    let first: { namespace: string; name: string } | undefined;
    for (const vm of vms) {
      try {
        const made = await api.createVm<KubeObject & { metadata: { namespace: string } }>(vm);
        first ??= { namespace: made?.metadata?.namespace ?? vm.metadata.namespace, name: made?.metadata?.name ?? vm.metadata.name ?? '' };
      } catch (err) {
        // The form's fields are not the template's, so every cause is shown
        // above it, prefixed by the VM it refused.
        const e = formErrors(err instanceof api.ApiError ? err.body : undefined, err instanceof Error ? err.message : String(err));
        const all = [...e.general, ...Object.values(e.fields).flatMap((m) => m ?? [])];
        setGeneral([
          ...(first ? [`VirtualMachine ${first.name} was created; the next was not.`] : []),
          ...all.map((m) => `VirtualMachine ${vm.metadata.name ?? ''}: ${m}`),
        ]);
        return undefined;
      }
    }
    return first;
  };

  const fieldsView = (
    <>
      <FormGroup label="Template" isRequired fieldId="create-vm-template">
        <FormSelect
          id="create-vm-template"
          data-testid="create-vm-template"
          value={chosen}
          validated={templateError ? 'error' : 'default'}
          onChange={(_e, v) => {
            setChosen(v);
            setTemplateError('');
          }}
        >
          <FormSelectOption value="" label={!loaded ? 'Loading…' : options.length ? 'Choose a template' : 'No templates'} isPlaceholder />
          {options.map((o) => (
            <FormSelectOption key={o.value} value={o.value} label={o.label} />
          ))}
        </FormSelect>
        <Helper
          messages={templateError ? [templateError] : []}
          hint={listError ? `Templates cannot all be listed: ${listError}` : template?.metadata?.annotations?.description}
        />
      </FormGroup>
      {fields.map((f) => (
        <FormGroup key={f.name} label={f.label} isRequired={f.required && !f.generated} fieldId={`template-param-${f.name}`}>
          <TextInput
            id={`template-param-${f.name}`}
            data-testid={`template-param-${f.name}`}
            value={values[f.name] ?? ''}
            placeholder={f.generated ? 'Generated when left empty' : undefined}
            validated={errorsFor(f.name).length ? 'error' : 'default'}
            onChange={(_e, v) => setValue(f.name, v)}
          />
          <Helper messages={errorsFor(f.name)} hint={f.description || undefined} />
        </FormGroup>
      ))}
    </>
  );

  return {
    fields: fieldsView,
    submit,
    general,
    hasFieldErrors: !!templateError || Object.values(clientErrors).some(Boolean),
  };
}
