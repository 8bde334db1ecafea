// The console routes in the URL's fragment, so the server serves one
// index.html and needs no knowledge of the pages; a reload or a shared link
// lands on the same page.

export type VmTab = 'overview' | 'yaml' | 'events' | 'migrations' | 'operations' | 'console' | 'vnc';
export const vmTabs: readonly VmTab[] = ['overview', 'yaml', 'events', 'migrations', 'operations', 'console', 'vnc'];

export type Route =
  | { page: 'overview' }
  | { page: 'vms' }
  | { page: 'vm'; namespace: string; name: string; tab: VmTab }
  // namespace is the one to propose; '' when the list showed all.
  | { page: 'create-vm'; namespace: string }
  | { page: 'disks' }
  | { page: 'operations' };

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#?\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  switch (parts[0]) {
    case 'vms': {
      const [, namespace, name, tab] = parts;
      if (namespace && name) {
        const t = vmTabs.includes(tab as VmTab) ? (tab as VmTab) : 'overview';
        return { page: 'vm', namespace, name, tab: t };
      }
      return { page: 'vms' };
    }
    case 'create-vm':
      return { page: 'create-vm', namespace: parts[1] ?? '' };
    case 'disks':
      return { page: 'disks' };
    case 'operations':
      return { page: 'operations' };
    default:
      return { page: 'overview' };
  }
}

export function routeHash(r: Route): string {
  switch (r.page) {
    case 'vm': {
      const base = `#/vms/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}`;
      return r.tab === 'overview' ? base : `${base}/${r.tab}`;
    }
    case 'create-vm':
      return r.namespace ? `#/create-vm/${encodeURIComponent(r.namespace)}` : '#/create-vm';
    case 'overview':
      return '#/';
    default:
      return `#/${r.page}`;
  }
}
