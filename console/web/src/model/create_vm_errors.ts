// Maps the API server's or a webhook's refusal of a new VM onto the form's
// fields, so the user reads the server's words next to what to change. The
// Status message stays the headline: it names the webhook that refused.

import type { FormField } from './create_vm';
import type { Status } from './types';

export interface FormErrors {
  // Shown above the form: the Status message and causes with no field here.
  general: string[];
  fields: Partial<Record<FormField, string[]>>;
}

// Longest prefix wins, so a volume's containerDisk lands on the source, not
// on the template as a whole. Paths are the manifest's, as
// buildVirtualMachine writes it (one data volume, one volume).
const prefixes: [string, FormField][] = [
  ['metadata.name', 'name'],
  ['metadata.namespace', 'namespace'],
  ['spec.instancetype', 'instancetype'],
  ['spec.preference', 'preference'],
  ['spec.runStrategy', 'start'],
  ['spec.running', 'start'],
  ['spec.dataVolumeTemplates[0].metadata.name', 'name'],
  ['spec.dataVolumeTemplates[0].spec.storage', 'diskSize'],
  ['spec.dataVolumeTemplates[0].spec.pvc', 'diskSize'],
  ['spec.dataVolumeTemplates[0].spec.source', 'source'],
  ['spec.dataVolumeTemplates[0].spec.sourceRef', 'source'],
  ['spec.template.spec.volumes[0]', 'source'],
  ['spec.template.spec.domain.memory', 'memory'],
  ['spec.template.spec.domain.resources', 'memory'],
];

// fieldFor answers the form field a cause's path is about, if any. Paths
// arrive with or without a leading dot, and some webhooks name the VMI's
// fields under "spec." alone.
export function fieldFor(path: string | undefined): FormField | undefined {
  if (!path) return undefined;
  const p = path.replace(/^\./, '');
  let best: [string, FormField] | undefined;
  for (const pair of prefixes) {
    const [pre] = pair;
    if ((p === pre || p.startsWith(`${pre}.`) || p.startsWith(`${pre}[`)) && (!best || pre.length > best[0].length)) best = pair;
  }
  return best?.[1];
}

// formErrors reads a failed create. message is the error's text when the
// body was not a Status (a proxy's plain-text answer).
export function formErrors(status: Status | undefined, message: string): FormErrors {
  const out: FormErrors = { general: [], fields: {} };
  const add = (f: FormField, m: string) => {
    const list = (out.fields[f] ??= []);
    if (!list.includes(m)) list.push(m);
  };
  const headline = status?.message || message;
  if (headline) out.general.push(headline);
  const causes = status?.details?.causes ?? [];
  for (const c of causes) {
    const m = c.message || c.reason || 'invalid';
    const f = fieldFor(c.field);
    if (f) add(f, m);
    // A cause with no field of the form is already in the headline when the
    // server folded it in; otherwise it must be shown on its own.
    else if (!headline.includes(m)) out.general.push(c.field ? `${c.field}: ${m}` : m);
  }
  // Refusals without causes that still point at one field.
  if (!causes.length && status) {
    if (status.reason === 'AlreadyExists') add('name', headline);
    else if (status.reason === 'NotFound' && status.details?.kind === 'namespaces') add('namespace', headline);
  }
  return out;
}
