// A list read once per path, for forms: instance types, preferences, boot
// sources and templates change rarely, and a form that reshuffles its
// options under the user's pointer is worse than a slightly stale one.

import { useEffect, useState } from 'react';
import * as api from '../api';

/** What useListOnce has read so far. */
export interface Listed<T> {
  items: T[];
  loaded: boolean;
  error?: string;
}

/** useListOnce lists path (nothing while it is null) and keeps the answer. */
export function useListOnce<T>(path: string | null): Listed<T> {
  const [l, setL] = useState<Listed<T>>({ items: [], loaded: false });
  useEffect(() => {
    setL({ items: [], loaded: false });
    if (!path) return;
    const ac = new AbortController();
    api
      .list<T>(path, ac.signal)
      .then((r) => setL({ items: r.items ?? [], loaded: true }))
      .catch((e: unknown) => {
        if (!ac.signal.aborted) setL({ items: [], loaded: true, error: e instanceof Error ? e.message : String(e) });
      });
    return () => ac.abort();
  }, [path]);
  return l;
}
