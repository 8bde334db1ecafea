import { useEffect, useState } from 'react';
import { FormSelect, FormSelectOption, TextInput } from '@patternfly/react-core';
import { paths } from '../api';
import { useWatchList } from '../hooks';
import type { KubeObject } from '../model/types';

const storageKey = 'virtflow.namespace';
export const allNamespaces = '';

// useNamespace remembers the chosen namespace across pages and reloads, as
// the OpenShift console's project selector does.
export function useNamespace(): [string, (ns: string) => void] {
  const [ns, setNs] = useState(() => localStorage.getItem(storageKey) ?? 'default');
  useEffect(() => {
    localStorage.setItem(storageKey, ns);
  }, [ns]);
  return [ns, setNs];
}

// NamespaceSelect lists the namespaces the user may list; a user who may
// not (a namespace-scoped ServiceAccount) types the namespace instead.
export function NamespaceSelect({ value, onChange }: { value: string; onChange: (ns: string) => void }) {
  const namespaces = useWatchList<KubeObject>(paths.namespaces());
  if (namespaces.error && !namespaces.loaded) {
    return (
      <TextInput
        aria-label="Namespace"
        placeholder="namespace"
        value={value}
        onChange={(_e, v) => onChange(v.trim())}
        style={{ width: '16em' }}
      />
    );
  }
  const names = namespaces.items.map((n) => n.metadata?.name ?? '').filter(Boolean);
  if (value && !names.includes(value)) names.unshift(value);
  return (
    <FormSelect aria-label="Namespace" value={value} onChange={(_e, v) => onChange(v)} style={{ width: '16em' }}>
      <FormSelectOption value={allNamespaces} label="All namespaces" />
      {names.map((n) => (
        <FormSelectOption key={n} value={n} label={n} />
      ))}
    </FormSelect>
  );
}
