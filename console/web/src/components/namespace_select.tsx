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
// allowAll offers "All namespaces", which a page that creates in one
// namespace must not.
export function NamespaceSelect({
  value,
  onChange,
  allowAll = true,
  id,
  testId,
}: {
  value: string;
  onChange: (ns: string) => void;
  allowAll?: boolean;
  id?: string;
  testId?: string;
}) {
  const namespaces = useWatchList<KubeObject>(paths.namespaces());
  if (namespaces.error && !namespaces.loaded) {
    return (
      <TextInput
        id={id}
        data-testid={testId}
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
    <FormSelect id={id} data-testid={testId} aria-label="Namespace" value={value} onChange={(_e, v) => onChange(v)} style={{ width: '16em' }}>
      {allowAll ? <FormSelectOption value={allNamespaces} label="All namespaces" /> : !value && <FormSelectOption value="" label="Choose a namespace" isPlaceholder />}
      {names.map((n) => (
        <FormSelectOption key={n} value={n} label={n} />
      ))}
    </FormSelect>
  );
}
