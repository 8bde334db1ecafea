// The console server's answers, read leniently: the shapes the console was
// first specified with and those console/server sends are both accepted, so
// either side can move without a flag day. Each function turns what came
// over the wire into the model's types, or drops what it cannot read.

import { isOperation, type Operation } from './operations';
import type { AccessResult } from './permissions';

export interface User {
  user: string;
  groups: string[];
}

// readUser accepts {user: "name", groups} and {user: {username, groups}}.
export function readUser(v: unknown): User {
  const o = (v ?? {}) as { user?: unknown; groups?: unknown; username?: unknown };
  const inner = typeof o.user === 'object' && o.user !== null ? (o.user as { username?: unknown; groups?: unknown }) : undefined;
  const name = inner ? inner.username : (o.user ?? o.username);
  const groups = inner?.groups ?? o.groups;
  return {
    user: typeof name === 'string' ? name : '',
    groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
  };
}

// readAccessResult accepts {allowed, reason} and a bare boolean.
export function readAccessResult(v: unknown): AccessResult {
  if (v === true) return { allowed: true };
  const o = v as Partial<AccessResult> | null | undefined;
  if (o && typeof o === 'object' && o.allowed === true) return { allowed: true };
  const reason = o && typeof o === 'object' && typeof o.reason === 'string' && o.reason ? o.reason : undefined;
  return reason ? { allowed: false, reason } : { allowed: false };
}

// readOperation maps the server's field names onto the model's: the
// Temporal UI link arrives as temporalUI or uiURL.
export function readOperation(v: unknown): Operation | undefined {
  if (!isOperation(v)) return undefined;
  const o = v as Operation & { temporalUI?: unknown };
  const op: Operation = { ...o };
  if (!op.uiURL && typeof o.temporalUI === 'string' && o.temporalUI) op.uiURL = o.temporalUI;
  delete (op as { temporalUI?: unknown }).temporalUI;
  if (op.owner !== undefined && (op.owner === null || typeof op.owner !== 'object' || typeof op.owner.kind !== 'string')) {
    delete op.owner;
  }
  return op;
}

// readOperations accepts a bare array or {operations: [...]}.
export function readOperations(v: unknown): Operation[] {
  const list = Array.isArray(v) ? v : Array.isArray((v as { operations?: unknown })?.operations) ? (v as { operations: unknown[] }).operations : [];
  return list.map(readOperation).filter((o): o is Operation => o !== undefined);
}

export type StreamMessage = { kind: 'snapshot'; operations: Operation[] } | { kind: 'update'; operation: Operation } | { kind: 'ignore' };

// readStreamMessage reads one event of the operations stream: a whole list
// (a snapshot that replaces what is shown) or one operation (an update).
export function readStreamMessage(v: unknown): StreamMessage {
  if (Array.isArray(v) || (v && typeof v === 'object' && Array.isArray((v as { operations?: unknown }).operations))) {
    return { kind: 'snapshot', operations: readOperations(v) };
  }
  const op = readOperation(v);
  return op ? { kind: 'update', operation: op } : { kind: 'ignore' };
}
