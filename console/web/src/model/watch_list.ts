import { objectKey } from './object_key';
import type { KubeList, KubeObject, Status } from './types';

// A watch list is a list kept current by the events of a watch started at
// the list's resourceVersion, the way client-go's informers do it.

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T> {
  type: EventType;
  object: T | Status;
}

export interface ListState<T> {
  items: ReadonlyMap<string, T>;
  // resourceVersion is where the next watch resumes: the list's, then that
  // of each event (bookmarks included).
  resourceVersion: string;
  // expired asks the caller to list again: the watch's resourceVersion is
  // gone (410 Gone) or the server ended the watch with an error.
  expired: boolean;
  error?: string;
}

export function fromList<T extends KubeObject>(list: KubeList<T>): ListState<T> {
  return {
    items: new Map((list.items ?? []).map((o) => [objectKey(o), o])),
    resourceVersion: list.metadata?.resourceVersion ?? '',
    expired: false,
  };
}

// applyEvent returns the list after one event; it never changes the state
// it is given, so React sees a new value on every change.
export function applyEvent<T extends KubeObject>(state: ListState<T>, ev: WatchEvent<T>): ListState<T> {
  const rv = ev.object?.metadata?.resourceVersion || state.resourceVersion;
  switch (ev.type) {
    case 'ADDED':
    case 'MODIFIED': {
      const items = new Map(state.items);
      items.set(objectKey(ev.object), ev.object as T);
      return { ...state, items, resourceVersion: rv };
    }
    case 'DELETED': {
      const items = new Map(state.items);
      items.delete(objectKey(ev.object));
      return { ...state, items, resourceVersion: rv };
    }
    case 'BOOKMARK':
      return { ...state, resourceVersion: rv };
    case 'ERROR': {
      const st = ev.object as Status;
      // 410 is the common case (the resourceVersion was compacted away); any
      // other error also ends the watch, and listing again is the one way on.
      const error = st.code === 410 ? undefined : st.message || `watch error ${st.code ?? ''}`.trim();
      return { ...state, expired: true, ...(error ? { error } : {}) };
    }
    default:
      return state;
  }
}

// sortedItems orders by namespace, then name, for a stable table.
export function sortedItems<T extends KubeObject>(state: ListState<T> | undefined): T[] {
  if (!state) return [];
  return [...state.items.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}
