// toYaml renders an API object as the YAML `kubectl get -o yaml` shows, for
// the read-only YAML tab; a full YAML library would be most of the bundle's
// weight for one view. Output is valid YAML that parses back to the input.

const plain = /^[A-Za-z0-9_./][A-Za-z0-9_./ @()+=,-]*$/;
const reserved = /^(true|false|yes|no|on|off|y|n|null|~|[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+|\.inf|\.nan)$/i;

function scalar(v: string | number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v !== 'string') return String(v);
  // Quote whatever a YAML reader would take for another type or for syntax.
  if (v === '' || !plain.test(v) || reserved.test(v) || v.endsWith(' ')) return JSON.stringify(v);
  return v;
}

function key(k: string): string {
  return scalar(k);
}

// block renders a multi-line string as a literal block, as kubectl does for
// cloud-init user data; "|-" strips the final newline the block adds.
function block(v: string, indent: string): string {
  const chomp = v.endsWith('\n') ? '|' : '|-';
  const body = (v.endsWith('\n') ? v.slice(0, -1) : v).split('\n');
  // A block whose first line starts with a space needs an explicit indent.
  const hint = body[0]?.startsWith(' ') ? '2' : '';
  return `${chomp}${hint}\n` + body.map((l) => (l === '' ? '' : indent + l)).join('\n');
}

// isMultiline picks the strings a literal block round-trips: "|" and "|-"
// cover at most one final newline, and a block cannot carry a CR.
function isMultiline(v: unknown): v is string {
  return typeof v === 'string' && v.includes('\n') && !v.includes('\r') && !v.endsWith('\n\n');
}

function emit(v: unknown, indent: string): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return ' []';
    return v
      .map((item) => {
        const inner = emit(item, indent + '  ');
        // "- key: value" puts an object's first key on the dash's line.
        if (isObject(item) && Object.keys(item).length > 0) return `\n${indent}- ${inner.trimStart()}`;
        return `\n${indent}-${inner}`;
      })
      .join('');
  }
  if (isObject(v)) {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return ' {}';
    return entries
      .map(([k, x]) => {
        const nested = Array.isArray(x) && x.length > 0 ? emit(x, indent) : emit(x, indent + '  ');
        return `\n${indent}${key(k)}:${nested}`;
      })
      .join('');
  }
  if (isMultiline(v)) return ' ' + block(v, indent);
  return ' ' + scalar(v as string | number | boolean | null);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function toYaml(v: unknown): string {
  if (!isObject(v) && !Array.isArray(v)) return emit(v, '').trimStart() + '\n';
  return emit(v, '').replace(/^\n/, '') + '\n';
}

// forDisplay drops what kubectl also hides by default: managedFields is
// noise to a reader and often longer than the object.
export function forDisplay<T extends { metadata?: { managedFields?: unknown } }>(o: T): T {
  if (!o.metadata?.managedFields) return o;
  const { managedFields: _drop, ...metadata } = o.metadata;
  return { ...o, metadata };
}
