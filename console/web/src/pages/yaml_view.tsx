import { ClipboardCopyButton, CodeBlock, CodeBlockAction, CodeBlockCode, EmptyState } from '@patternfly/react-core';
import { useState } from 'react';
import { forDisplay, toYaml } from '../model/yaml';

// YamlView shows an object as YAML, read-only; editing comes with the
// create flow's server-side validation.
export function YamlView({ object }: { object: object | undefined }) {
  const [copied, setCopied] = useState(false);
  if (!object) return <EmptyState titleText="Nothing to show" headingLevel="h3" />;
  const text = toYaml(forDisplay(object));
  const copy = (
    <CodeBlockAction>
      <ClipboardCopyButton
        id="yaml-copy"
        textId="yaml-text"
        aria-label="Copy YAML"
        variant="plain"
        onClick={() => {
          void navigator.clipboard?.writeText(text).then(() => setCopied(true));
        }}
        onTooltipHidden={() => setCopied(false)}
      >
        {copied ? 'Copied' : 'Copy YAML'}
      </ClipboardCopyButton>
    </CodeBlockAction>
  );
  return (
    <CodeBlock actions={copy}>
      <CodeBlockCode id="yaml-text">{text}</CodeBlockCode>
    </CodeBlock>
  );
}
