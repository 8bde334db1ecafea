// Creating VMs from an OpenShift template: the parameter form, what is sent
// to POST /console/templates/{ns}/{name}/process, and the processed List's
// VirtualMachines. Kept apart from the page so the mapping of the server's
// refusals onto parameters is pinned by tests.

import type { KubeList, KubeObject, Status } from './types';

export interface TemplateParameter {
  name: string;
  displayName?: string;
  description?: string;
  value?: string;
  generate?: string;
  from?: string;
  required?: boolean;
}

export interface Template extends KubeObject {
  message?: string;
  parameters?: TemplateParameter[];
  objects?: unknown[];
}

export interface ParamField {
  name: string;
  label: string;
  description: string;
  required: boolean;
  // A generated parameter may be left empty: the server fills it.
  generated: boolean;
  // The template's own value, shown as the field's starting value.
  initial: string;
}

export function paramFields(t: Template | undefined): ParamField[] {
  return (t?.parameters ?? [])
    .filter((p) => p.name)
    .map((p) => ({
      name: p.name,
      label: p.displayName || p.name,
      description: p.description ?? '',
      required: !!p.required,
      generated: !!p.generate,
      initial: p.value ?? '',
    }));
}

export function initialValues(fields: readonly ParamField[]): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.name, f.initial]));
}

// parametersToSend leaves out values the user did not change: the template
// already holds them, and an empty generated parameter must stay absent so
// the server generates it rather than taking '' as the value.
export function parametersToSend(fields: readonly ParamField[], values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.name] ?? f.initial;
    if (v !== f.initial) out[f.name] = v;
  }
  return out;
}

// validateParams catches a required parameter left empty before the round
// trip; one with a generator is filled by the server.
export function validateParams(fields: readonly ParamField[], values: Record<string, string>): Record<string, string> {
  const e: Record<string, string> = {};
  for (const f of fields) {
    if (f.required && !f.generated && !(values[f.name] ?? f.initial)) e[f.name] = `${f.label} is required.`;
  }
  return e;
}

export interface ProcessErrors {
  general: string[];
  params: Record<string, string[]>;
}

// paramOfCause names the parameter a cause's field is about: the route's
// own check of unknown names says "parameters[NAME]", the processing
// "template.parameters[i]" by index into the template's parameters.
export function paramOfCause(field: string | undefined, fields: readonly ParamField[]): string | undefined {
  if (!field) return undefined;
  const f = field.replace(/^\./, '');
  const byName = /^parameters\[(.+)\]$/.exec(f);
  if (byName) return byName[1];
  const byIndex = /^template\.parameters\[(\d+)\]/.exec(f);
  if (byIndex) return fields[Number(byIndex[1])]?.name;
  return undefined;
}

// processErrors reads a refused process. A parameter the form does not show
// (unknown to the template) still gets its message, in the general list.
export function processErrors(status: Status | undefined, message: string, fields: readonly ParamField[]): ProcessErrors {
  const out: ProcessErrors = { general: [], params: {} };
  const headline = status?.message || message;
  if (headline) out.general.push(headline);
  const shown = new Set(fields.map((f) => f.name));
  for (const c of status?.details?.causes ?? []) {
    const m = c.message || c.reason || 'invalid';
    const p = paramOfCause(c.field, fields);
    if (p && shown.has(p)) {
      const list = (out.params[p] ??= []);
      if (!list.includes(m)) list.push(m);
    } else if (!headline.includes(m)) {
      out.general.push(c.field ? `${c.field}: ${m}` : m);
    }
  }
  return out;
}

export interface ProcessedVm extends KubeObject {
  metadata: { name?: string; namespace: string } & NonNullable<KubeObject['metadata']>;
}

// virtualMachinesOf picks the VirtualMachines out of the processed List,
// each in the namespace the user chose unless the template fixed one: the
// console creates only those, as the other kinds need rights and pages it
// does not have.
export function virtualMachinesOf(list: KubeList<KubeObject> | undefined, namespace: string): ProcessedVm[] {
  return (list?.items ?? [])
    .filter((o) => o.kind === 'VirtualMachine' && (o.apiVersion ?? '').startsWith('kubevirt.io/'))
    .map((o) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata?.namespace || namespace } }));
}

export interface TemplateOption {
  value: string;
  label: string;
}

// templateOptions offers templates as "namespace/name", the namespace's own
// first, each once though both lists may hold it.
export function templateOptions(own: readonly Template[], shared: readonly Template[]): TemplateOption[] {
  const seen = new Set<string>();
  const out: TemplateOption[] = [];
  for (const t of [...own, ...shared]) {
    const ns = t.metadata?.namespace;
    const name = t.metadata?.name;
    if (!ns || !name) continue;
    const value = `${ns}/${name}`;
    if (seen.has(value)) continue;
    seen.add(value);
    const display = t.metadata?.annotations?.['openshift.io/display-name'];
    out.push({ value, label: display ? `${display} (${value})` : value });
  }
  return out;
}
