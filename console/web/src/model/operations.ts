import { copyProgress } from './migrations';
import { parseProgress } from './progress';
import type { Severity } from './status';

// Operation is one workflow as GET /console/operations and its event
// stream describe it (model/wire.ts reads the wire forms).
export interface Operation {
  id: string;
  type: string;
  status: string;
  startTime?: string;
  closeTime?: string;
  // progress is what the workflow published: a percentage (a number, or a
  // string as CDI writes it, "45.20%"), or its progress memo, an object
  // with a step and, for an install, its components.
  progress?: unknown;
  owner?: { kind: string; namespace?: string; name?: string; group?: string; resource?: string };
  uiURL?: string;
  // cancellable, when the server says, is its verdict: running, and the
  // user may delete the owner.
  cancellable?: boolean;
}

// isOperation guards what the stream delivers: an event that is not an
// operation is dropped rather than rendered as a row of blanks.
export function isOperation(v: unknown): v is Operation {
  const o = v as Operation;
  return !!o && typeof o === 'object' && typeof o.id === 'string' && o.id !== '' && typeof o.status === 'string';
}

// Temporal's workflow execution statuses, as the Temporal UI colours them.
const severities: Record<string, Severity> = {
  Running: 'info',
  Completed: 'success',
  Failed: 'danger',
  TimedOut: 'danger',
  Terminated: 'warning',
  Canceled: 'warning',
  ContinuedAsNew: 'none',
};

export function operationSeverity(status: string): Severity {
  return severities[status] ?? 'none';
}

export function isRunning(op: Operation): boolean {
  return op.status === 'Running';
}

export interface ProgressView {
  percent?: number;
  text?: string;
}

// describeProgress turns whatever progress a workflow published into a bar
// and a line of text: a percentage draws a bar; a memo's step (a
// migration's phase) is the text; an install's components count towards a
// bar of those Available; a migration's copy draws its own.
export function describeProgress(op: Operation): ProgressView {
  const p = op.progress;
  const view: ProgressView = {};
  if (typeof p === 'number' || typeof p === 'string') {
    view.percent = parseProgress(p);
  } else if (p && typeof p === 'object' && !Array.isArray(p)) {
    const m = p as { step?: unknown; phase?: unknown; message?: unknown; percent?: unknown; progress?: unknown; components?: unknown };
    const pct = m.percent ?? m.progress;
    if (typeof pct === 'number' || typeof pct === 'string') view.percent = parseProgress(pct);
    const parts: string[] = [];
    const step = typeof m.step === 'string' && m.step ? m.step : m.phase;
    if (typeof step === 'string' && step) parts.push(step);
    if (typeof m.message === 'string' && m.message) parts.push(m.message);
    const copy = m.phase === 'Running' ? copyProgress(p) : undefined;
    if (copy) {
      view.percent ??= copy.percent;
      parts.push(copy.text);
    }
    if (Array.isArray(m.components) && m.components.length > 0) {
      const done = m.components.filter((c) => (c as { available?: unknown })?.available === true).length;
      view.percent ??= (100 * done) / m.components.length;
      parts.push(`${done} of ${m.components.length} components available`);
    }
    if (parts.length) view.text = parts.join(': ');
  }
  if (op.status === 'Completed') view.percent = 100;
  if (view.percent === undefined) delete view.percent;
  return view;
}

// mergeOperation replaces an operation by id, or adds it, keeping the list
// newest first. A stale event (the stream replaying a Running state after
// the list showed it closed) does not reopen an operation.
export function mergeOperation(list: readonly Operation[], op: Operation): Operation[] {
  const i = list.findIndex((o) => o.id === op.id);
  if (i >= 0 && list[i]!.closeTime && !op.closeTime) return list as Operation[];
  const next = i >= 0 ? list.map((o, j) => (j === i ? op : o)) : [...list, op];
  return sortOperations(next);
}

export function sortOperations(list: readonly Operation[]): Operation[] {
  const t = (o: Operation) => (o.startTime ? Date.parse(o.startTime) || 0 : 0);
  return [...list].sort((a, b) => t(b) - t(a) || a.id.localeCompare(b.id));
}

// matchesOwner filters operations the way GET /console/operations does with
// namespace, kind and name, so a page can filter the stream alike.
export function matchesOwner(op: Operation, f: { namespace?: string; kind?: string; name?: string }): boolean {
  if (f.namespace && op.owner?.namespace !== f.namespace) return false;
  if (f.kind && op.owner?.kind !== f.kind) return false;
  if (f.name && op.owner?.name !== f.name) return false;
  return true;
}
