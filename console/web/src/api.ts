// The console's one module that knows the backend's URLs and wire formats;
// everything else goes through it, so adapting to the server means editing
// this file only.
//
// The server keeps the session in a cookie (set by POST /auth/login) and
// proxies /api and /apis to the kube-apiserver as the logged-in user. Every
// non-GET request carries X-CSRF-Token, copied from the virtflow-csrf
// cookie, which a page of another origin cannot read.

import { splitLines } from './model/json_lines';
import type { Operation } from './model/operations';
import type { AccessCheck } from './model/permissions';
import type { KubeList, KubeObject, Status } from './model/types';
import type { VmAction } from './model/vm_actions';
import type { WatchEvent } from './model/watch_list';
import { readOperations, readStreamMessage, readUser, type StreamMessage, type User } from './model/wire';

export type { User };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason?: string,
    // The Status the API server answered, for its details.causes.
    readonly body?: Status,
  ) {
    super(message);
  }
}

// onUnauthorized is called on any 401, so the app can return to the login
// page when the session expires mid-use.
let unauthorizedHandler: () => void = () => {};
export function onUnauthorized(f: () => void): void {
  unauthorizedHandler = f;
}

// csrfFromLogin is the CSRF value a login or /auth/me answered with, used
// when the cookie is unreadable (a server that sets it HttpOnly).
let csrfFromLogin = '';

export function csrfToken(cookie: string = document.cookie): string {
  for (const part of cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === 'virtflow-csrf') return decodeURIComponent(v.join('='));
  }
  return csrfFromLogin;
}

function rememberCSRF(v: unknown): unknown {
  const t = (v as { csrfToken?: unknown } | null)?.csrfToken;
  if (typeof t === 'string' && t) csrfFromLogin = t;
  return v;
}

async function failure(resp: Response): Promise<ApiError> {
  let message = `${resp.status} ${resp.statusText}`;
  let reason: string | undefined;
  let status: Status | undefined;
  try {
    const text = await resp.text();
    try {
      // The API server's errors are Status objects; the console's own
      // endpoints answer {message} or plain text.
      const body = JSON.parse(text) as Status & { error?: string };
      message = body.message || body.error || message;
      reason = body.reason;
      if (body.kind === 'Status' || body.details) status = body;
    } catch {
      if (text.trim()) message = text.trim();
    }
  } catch {
    // The body is unreadable; the status line will do.
  }
  if (resp.status === 401) unauthorizedHandler();
  return new ApiError(resp.status, message, reason, status);
}

async function call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const resp = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  if (!resp.ok) throw await failure(resp);
  return resp;
}

async function json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const resp = await call(method, path, body, signal);
  const text = await resp.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

// --- session -------------------------------------------------------------

// Both answer the user ({user, groups}, or console/server's
// {user: {username, groups}, csrfToken}); the CSRF value is read from its
// cookie, which the login sets.
export const login = (token: string) => json<unknown>('POST', '/auth/login', { token }).then(rememberCSRF).then(readUser);
export const me = () => json<unknown>('GET', '/auth/me').then(rememberCSRF).then(readUser);
export const logout = () =>
  call('POST', '/auth/logout').then(() => {
    csrfFromLogin = '';
  });

// --- Kubernetes API, as the user ----------------------------------------

function nsPath(prefix: string, resource: string, namespace?: string, name?: string): string {
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const n = name ? `/${encodeURIComponent(name)}` : '';
  return `${prefix}${ns}/${resource}${n}`;
}

const kubevirt = '/apis/kubevirt.io/v1';
const subresources = '/apis/subresources.kubevirt.io/v1';

export const paths = {
  namespaces: () => '/api/v1/namespaces',
  nodes: () => '/api/v1/nodes',
  vms: (ns?: string, name?: string) => nsPath(kubevirt, 'virtualmachines', ns, name),
  vmis: (ns?: string, name?: string) => nsPath(kubevirt, 'virtualmachineinstances', ns, name),
  vmims: (ns: string, name?: string) => nsPath(kubevirt, 'virtualmachineinstancemigrations', ns, name),
  // A VMI's migrations carry its name in upstream's kubevirt.io/vmi-name
  // label (virt-api's mutator sets it), which virtctl migrate-cancel
  // selects by too.
  vmimsOf: (ns: string, vmiName: string) =>
    `${nsPath(kubevirt, 'virtualmachineinstancemigrations', ns)}?labelSelector=${encodeURIComponent(`kubevirt.io/vmi-name=${vmiName}`)}`,
  dataVolumes: (ns?: string, name?: string) => nsPath('/apis/cdi.kubevirt.io/v1beta1', 'datavolumes', ns, name),
  clusterInstancetypes: () => '/apis/instancetype.kubevirt.io/v1beta1/virtualmachineclusterinstancetypes',
  clusterPreferences: () => '/apis/instancetype.kubevirt.io/v1beta1/virtualmachineclusterpreferences',
  dataSources: (ns?: string) => nsPath('/apis/cdi.kubevirt.io/v1beta1', 'datasources', ns),
  templates: (ns: string, labelSelector?: string) => {
    const p = nsPath('/apis/template.openshift.io/v1', 'templates', ns);
    return labelSelector ? `${p}?labelSelector=${encodeURIComponent(labelSelector)}` : p;
  },
  hyperConvergeds: () => '/apis/hco.kubevirt.io/v1beta1/hyperconvergeds',
  // Events of the VM and of its VMI, which share its name.
  events: (ns: string, name: string) =>
    `${nsPath('/api/v1', 'events', ns)}?fieldSelector=${encodeURIComponent(`involvedObject.name=${name}`)}`,
  vmAction: (ns: string, name: string, action: 'start' | 'stop' | 'restart' | 'migrate') =>
    `${nsPath(subresources, 'virtualmachines', ns, name)}/${action}`,
  vmiAction: (ns: string, name: string, action: 'pause' | 'unpause') =>
    `${nsPath(subresources, 'virtualmachineinstances', ns, name)}/${action}`,
  vmiStream: (ns: string, name: string, kind: 'console' | 'vnc') =>
    `${nsPath(subresources, 'virtualmachineinstances', ns, name)}/${kind}`,
};

export const get = <T>(path: string, signal?: AbortSignal) => json<T>('GET', path, undefined, signal);
export const list = <T>(path: string, signal?: AbortSignal) => json<KubeList<T>>('GET', path, undefined, signal);
export const remove = (path: string) => json<unknown>('DELETE', path);

// createVm posts a new VirtualMachine and answers it as the server stored
// it; a refusal is an ApiError whose body holds the webhook's causes.
export const createVm = <T extends { metadata: { namespace: string } }>(vm: T) =>
  json<T>('POST', paths.vms(vm.metadata.namespace), vm);

// processTemplate answers the template's objects with the parameters
// substituted, as `oc process` would, or an ApiError whose body is a 422
// Status with a cause per parameter at fault.
export const processTemplate = (ns: string, name: string, parameters: Record<string, string>) =>
  json<KubeList<KubeObject>>('POST', `/console/templates/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/process`, { parameters });

// replaceYaml PUTs an edited object as the YAML text the user wrote: the
// API server parses it, so a syntax error, a failed validation or a
// webhook's refusal comes back in the server's words, and the text's
// resourceVersion makes a save over someone else's change a conflict.
export async function replaceYaml<T>(path: string, text: string): Promise<T> {
  const resp = await fetch(path, {
    method: 'PUT',
    headers: { Accept: 'application/json', 'Content-Type': 'application/yaml', 'X-CSRF-Token': csrfToken() },
    credentials: 'same-origin',
    body: text,
  });
  if (!resp.ok) throw await failure(resp);
  return (await resp.json()) as T;
}

export const createDataVolume = <T extends { metadata: { namespace: string } }>(dv: T) =>
  json<T>('POST', paths.dataVolumes(dv.metadata.namespace), dv);

// uploadImage sends a file as the raw body of POST /console/upload/{ns}/{dv}.
// XMLHttpRequest, not fetch, because only it reports upload progress.
export function uploadImage(
  ns: string,
  dv: string,
  file: Blob,
  onProgress: (loaded: number, total: number, lengthComputable: boolean) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/console/upload/${encodeURIComponent(ns)}/${encodeURIComponent(dv)}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('X-CSRF-Token', csrfToken());
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total, e.lengthComputable);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve();
        return;
      }
      if (xhr.status < 200) {
        reject(new ApiError(xhr.status, `the upload failed: ${xhr.status} ${xhr.statusText}`));
        return;
      }
      // failure() reads a Response; one built from the reply keeps a
      // single place that turns answers into ApiErrors.
      const body = xhr.status === 204 ? null : xhr.responseText;
      void failure(new Response(body, { status: xhr.status, statusText: xhr.statusText })).then(reject);
    };
    xhr.onerror = () => reject(new Error('the upload failed: the connection broke'));
    xhr.onabort = () => reject(new DOMException('the upload was cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}

// vmAction performs a list-page action. The subresources are PUTs with an
// empty body, as virtctl sends them; delete removes the VM, and KubeVirt's
// garbage collection its VMI.
export async function vmAction(action: VmAction, ns: string, name: string): Promise<void> {
  switch (action) {
    case 'start':
    case 'stop':
    case 'restart':
    case 'migrate':
      await call('PUT', paths.vmAction(ns, name, action), {});
      return;
    case 'pause':
    case 'unpause':
      await call('PUT', paths.vmiAction(ns, name, action), {});
      return;
    case 'delete':
      await remove(paths.vms(ns, name));
  }
}

// cancelMigration deletes a migration in flight, which stops it and
// leaves the VM on its source, as virtctl migrate-cancel does.
export const cancelMigration = (ns: string, name: string) => remove(paths.vmims(ns, name)).then(() => undefined);

function withQuery(path: string, q: Record<string, string>): string {
  const sep = path.includes('?') ? '&' : '?';
  return path + sep + new URLSearchParams(q).toString();
}

// watch streams a watch's events, one JSON object a line, until the server
// ends it, the signal aborts, or the connection breaks (it then rejects).
export async function watch<T>(
  path: string,
  resourceVersion: string,
  onEvent: (ev: WatchEvent<T>) => void,
  signal: AbortSignal,
): Promise<void> {
  const q: Record<string, string> = { watch: '1', allowWatchBookmarks: 'true' };
  if (resourceVersion) q.resourceVersion = resourceVersion;
  const resp = await call('GET', withQuery(path, q), undefined, signal);
  if (!resp.body) throw new Error('the browser gave no stream for the watch');
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const r = splitLines(rest, value);
    rest = r.rest;
    for (const line of r.lines) onEvent(JSON.parse(line) as WatchEvent<T>);
  }
}

export function websocketURL(path: string): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${path}`;
}

// KubeVirt's console and VNC subresources both speak plain.kubevirt.io:
// binary frames carrying the raw serial or RFB bytes. The browser sends the
// session cookie with the upgrade request.
export const streamProtocols = ['plain.kubevirt.io'];

// --- console endpoints ---------------------------------------------------

// access asks, for each check, whether the user may do it (the server runs
// a SelfSubjectAccessReview as the user) and answers in the same order, each
// answer a boolean or {allowed, reason}. Requests are cut in batches under
// the server's bound on checks per request.
const accessBatch = 200;
export async function access(checks: AccessCheck[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < checks.length; i += accessBatch) {
    const answers = await json<unknown>('POST', '/console/access', checks.slice(i, i + accessBatch));
    const batch = Array.isArray(answers) ? answers : [];
    // A short answer must not shift later answers onto the wrong checks.
    for (let j = 0; j < Math.min(accessBatch, checks.length - i); j++) out.push(batch[j]);
  }
  return out;
}

export interface OperationFilter {
  namespace?: string;
  kind?: string;
  name?: string;
}

function operationsQuery(filter: OperationFilter): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(filter)) if (v) q[k] = v;
  return q;
}

// operations answers GET /console/operations: a bare array or
// {operations: [...]}, read by model/wire.
export function operations(filter: OperationFilter = {}): Promise<Operation[]> {
  const q = operationsQuery(filter);
  const path = Object.keys(q).length ? withQuery('/console/operations', q) : '/console/operations';
  return json<unknown>('GET', path).then(readOperations);
}

export const cancelOperation = (id: string) => call('POST', `/console/operations/${encodeURIComponent(id)}/cancel`).then(() => undefined);

export interface StreamHandlers {
  message: (m: StreamMessage) => void;
  // live is false while EventSource is reconnecting.
  live: (connected: boolean) => void;
  // error is a failure the server reported in the stream (a Status).
  error: (message: string) => void;
}

// operationStream follows GET /console/operations/stream, with the same
// filter as the list. Unnamed events and "operations" events carry a list
// (a snapshot) or one operation; "error" events a Status. EventSource
// reconnects by itself after a drop.
export function operationStream(filter: OperationFilter, h: StreamHandlers): () => void {
  const q = operationsQuery(filter);
  const path = Object.keys(q).length ? withQuery('/console/operations/stream', q) : '/console/operations/stream';
  const es = new EventSource(path, { withCredentials: true });
  const onData = (e: MessageEvent<string>) => {
    try {
      h.message(readStreamMessage(JSON.parse(e.data)));
    } catch {
      // A malformed event is skipped; the next one carries full state.
    }
  };
  es.onmessage = onData;
  es.addEventListener('operations', onData);
  es.addEventListener('error', (e: Event) => {
    // EventSource also fires "error" (without data) on a dropped connection.
    const data = (e as MessageEvent<string>).data;
    if (typeof data !== 'string') return;
    try {
      const st = JSON.parse(data) as Status;
      if (st.code === 401) unauthorizedHandler();
      h.error(st.message || `operations stream: ${st.code ?? 'error'}`);
    } catch {
      h.error(data);
    }
  });
  es.onopen = () => h.live(true);
  es.onerror = () => h.live(es.readyState === EventSource.OPEN);
  return () => es.close();
}
