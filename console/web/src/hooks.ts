import { useEffect, useMemo, useState } from 'react';
import * as api from './api';
import { checkKey, zipAccess, type AccessCheck, type AccessResult } from './model/permissions';
import { matchesOwner, mergeOperation, sortOperations, type Operation } from './model/operations';
import { parseRoute, type Route } from './model/route';
import type { KubeObject } from './model/types';
import { sortedItems } from './model/watch_list';
import { watchList, type WatchedList } from './watch';

// useWatchList keeps a Kubernetes list current; path null watches nothing
// (a page waiting for its namespace).
export function useWatchList<T extends KubeObject>(path: string | null): WatchedList<T> & { items: T[] } {
  const [w, setW] = useState<WatchedList<T>>({ loaded: false });
  useEffect(() => {
    setW({ loaded: false });
    if (!path) return;
    return watchList<T>(path, setW);
  }, [path]);
  const items = useMemo(() => sortedItems(w.state), [w.state]);
  return { ...w, items };
}

// useWatchedObject watches one object through a list filtered by name, so
// it updates as the list page does.
export function useWatchedObject<T extends KubeObject>(listPath: string, name: string): WatchedList<T> & { object?: T } {
  const path = `${listPath}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;
  const w = useWatchList<T>(path);
  return { ...w, object: w.items[0] };
}

// Answers are cached for a while: every row of a list asks the same kind of
// question, and RBAC rarely changes under a user's feet.
const accessCache = new Map<string, { result: AccessResult; at: number }>();
const accessTTL = 60_000;

// useAccess answers checks through POST /console/access. The map it returns
// grows as rows come and go, so a new row asks only its own questions and
// the others keep their buttons; a check not yet answered is absent, which
// decide() treats as not (yet) allowed.
export function useAccess(checks: readonly AccessCheck[]): ReadonlyMap<string, AccessResult> | undefined {
  const key = checks.map(checkKey).sort().join('\n');
  const [answers, setAnswers] = useState<ReadonlyMap<string, AccessResult>>();
  useEffect(() => {
    if (!checks.length) return;
    let cancelled = false;
    const now = Date.now();
    const known = new Map<string, AccessResult>();
    const missing: AccessCheck[] = [];
    for (const c of checks) {
      const hit = accessCache.get(checkKey(c));
      if (hit && now - hit.at < accessTTL) known.set(checkKey(c), hit.result);
      else if (!missing.some((m) => checkKey(m) === checkKey(c))) missing.push(c);
    }
    const add = (got: ReadonlyMap<string, AccessResult>) => {
      if (!cancelled) setAnswers((prev) => new Map([...(prev ?? []), ...got]));
    };
    add(known);
    if (!missing.length) return;
    api
      .access(missing)
      .then((results) => {
        const got = zipAccess(missing, results);
        for (const [k, r] of got) accessCache.set(k, { result: r, at: Date.now() });
        add(got);
      })
      .catch((e: unknown) => {
        // Unanswered checks deny, saying why, rather than spin forever; they
        // are not cached, so the next look asks again.
        const reason = e instanceof Error ? e.message : String(e);
        add(new Map(missing.map((c) => [checkKey(c), { allowed: false, reason }])));
      });
    return () => {
      cancelled = true;
    };
    // The key stands for the checks.
  }, [key]);
  return answers;
}

// forgetAccess drops cached answers, after login as another user.
export function forgetAccess(): void {
  accessCache.clear();
}

// useNow ticks so ages stay current without a refetch.
export function useNow(intervalMs = 10_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const f = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', f);
    return () => window.removeEventListener('hashchange', f);
  }, []);
  return route;
}

export interface OperationsState {
  operations: Operation[];
  loaded: boolean;
  error?: string;
  live: boolean;
}

// useOperations lists operations, then keeps them current from the event
// stream: a snapshot event replaces the list, a single operation merges by
// id. The stream is opened first so nothing between list and stream is
// missed.
export function useOperations(filter: api.OperationFilter = {}): OperationsState {
  const { namespace, kind, name } = filter;
  const [s, setS] = useState<OperationsState>({ operations: [], loaded: false, live: false });
  useEffect(() => {
    setS({ operations: [], loaded: false, live: false });
    const f = { namespace, kind, name };
    let cancelled = false;
    let snapshotSeen = false;
    const close = api.operationStream(f, {
      message: (m) => {
        if (m.kind === 'snapshot') {
          snapshotSeen = true;
          const ops = sortOperations(m.operations.filter((op) => matchesOwner(op, f)));
          setS((prev) => ({ ...prev, operations: ops, loaded: true, error: undefined }));
        } else if (m.kind === 'update' && matchesOwner(m.operation, f)) {
          setS((prev) => ({ ...prev, operations: mergeOperation(prev.operations, m.operation) }));
        }
      },
      live: (live) => setS((prev) => ({ ...prev, live })),
      error: (error) => setS((prev) => ({ ...prev, loaded: true, error })),
    });
    api
      .operations(f)
      .then((listed) => {
        // A snapshot from the stream is at least as new as the list.
        if (cancelled || snapshotSeen) return;
        setS((prev) => {
          let ops: Operation[] = sortOperations(listed);
          // Events that arrived during the list are newer than it.
          for (const op of prev.operations) ops = mergeOperation(ops, op);
          return { ...prev, operations: ops, loaded: true, error: undefined };
        });
      })
      .catch((e: unknown) => {
        if (!cancelled) setS((prev) => ({ ...prev, loaded: true, error: e instanceof Error ? e.message : String(e) }));
      });
    return () => {
      cancelled = true;
      close();
    };
  }, [namespace, kind, name]);
  return s;
}
