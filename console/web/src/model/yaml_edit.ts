// Editing an object as YAML: the text goes to the API server as it is
// (application/yaml), so the server parses it and its validation and
// webhooks answer in their own words; these helpers shape those answers and
// tell when the object changed under the editor.

import type { Status } from './types';

export interface SaveProblem {
  // The Status message: it names the webhook or the rule that refused.
  title: string;
  // One line per cause, "field: message", those the title does not
  // already say.
  causes: string[];
  // A conflict: someone saved since the editor loaded; reload to go on.
  conflict: boolean;
}

// saveProblem reads a refused save. message is the error's text when the
// body was not a Status.
export function saveProblem(status: Status | undefined, message: string): SaveProblem {
  const title = status?.message || message || 'The change was not saved';
  const causes: string[] = [];
  for (const c of status?.details?.causes ?? []) {
    const m = c.message || c.reason || 'invalid';
    const line = c.field ? `${c.field.replace(/^\./, '')}: ${m}` : m;
    if (!title.includes(m) && !causes.includes(line)) causes.push(line);
  }
  return { title, causes, conflict: status?.reason === 'Conflict' || status?.code === 409 };
}

// resourceVersionIn reads metadata.resourceVersion from YAML as the editor
// shows it (toYaml's layout: two-space indent, one key per line), so the
// page can say when the text is older than the object. undefined when the
// text does not carry one where toYaml puts it.
export function resourceVersionIn(text: string): string | undefined {
  let inMetadata = false;
  for (const line of text.split('\n')) {
    if (/^metadata:\s*$/.test(line)) {
      inMetadata = true;
      continue;
    }
    if (inMetadata && /^\S/.test(line)) return undefined;
    const m = inMetadata ? /^ {2}resourceVersion:\s*"?([^"\s]+)"?\s*$/.exec(line) : null;
    if (m) return m[1];
  }
  return undefined;
}

// isStale says the object moved on since the text was loaded: saving it
// would be refused with a conflict, so the page offers a reload first.
export function isStale(text: string, current: { metadata?: { resourceVersion?: string } } | undefined): boolean {
  const edited = resourceVersionIn(text);
  const now = current?.metadata?.resourceVersion;
  return !!edited && !!now && edited !== now;
}
