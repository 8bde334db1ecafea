// watchList keeps a list current from list + watch, as client-go's reflector
// does: list, watch from the list's resourceVersion, resume the watch from
// the last seen resourceVersion when the server ends it, and list again when
// that version has expired (410 Gone).

import { ApiError, list, watch } from './api';
import { applyEvent, fromList, type ListState } from './model/watch_list';
import type { KubeObject } from './model/types';

export interface WatchedList<T> {
  state?: ListState<T>;
  // error is why the list is not (or no longer) current; the last items
  // stay on screen meanwhile.
  error?: string;
  loaded: boolean;
}

const maxBackoff = 30_000;

export function watchList<T extends KubeObject>(path: string, onChange: (l: WatchedList<T>) => void): () => void {
  const abort = new AbortController();
  let state: ListState<T> | undefined;
  let backoff = 1000;

  const publish = (error?: string) => onChange({ state, error, loaded: state !== undefined });
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      abort.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });

  async function run(): Promise<void> {
    let needList = true;
    while (!abort.signal.aborted) {
      // Each watch has its own abort, so an ERROR event can end it at once
      // even if the server leaves the stream open.
      const stream = new AbortController();
      const stop = () => stream.abort();
      abort.signal.addEventListener('abort', stop);
      try {
        if (needList) {
          state = fromList(await list<T>(path, stream.signal));
          needList = false;
          publish();
        }
        // Events of one stream read are applied together: a burst of
        // updates then costs one render, not one per object.
        let pending = false;
        await watch<T>(
          path,
          state!.resourceVersion,
          (ev) => {
            state = applyEvent(state!, ev);
            if (state.expired) stream.abort();
            if (!pending) {
              pending = true;
              queueMicrotask(() => {
                pending = false;
                publish(state?.error);
              });
            }
          },
          stream.signal,
        );
        // The server closed the watch (its timeout): resume from state's
        // resourceVersion.
        backoff = 1000;
      } catch (e) {
        if (abort.signal.aborted) return;
        if (state?.expired || (e instanceof ApiError && e.status === 410)) {
          needList = true;
          const error = state?.error;
          if (state) state = { ...state, expired: false };
          // 410 re-lists at once; a watch that failed otherwise waits first,
          // lest a failing server be asked in a tight loop.
          if (error) {
            publish(error);
            await sleep(backoff);
            backoff = Math.min(backoff * 2, maxBackoff);
          }
          continue;
        }
        // A forbidden list stays forbidden until RBAC changes; retrying
        // slowly shows the grant when it comes without hammering.
        publish(e instanceof Error ? e.message : String(e));
        await sleep(backoff);
        backoff = Math.min(backoff * 2, maxBackoff);
      } finally {
        abort.signal.removeEventListener('abort', stop);
      }
    }
  }

  void run();
  return () => abort.abort();
}
