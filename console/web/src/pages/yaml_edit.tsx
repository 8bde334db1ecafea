import { useMemo, useState } from 'react';
import { ActionGroup, Alert, AlertActionCloseButton, Button, EmptyState, TextArea, Tooltip } from '@patternfly/react-core';
import * as api from '../api';
import { useAccess } from '../hooks';
import { checkKey, decide, type AccessCheck } from '../model/permissions';
import type { KubeObject } from '../model/types';
import { forDisplay, toYaml } from '../model/yaml';
import { isStale, saveProblem, type SaveProblem } from '../model/yaml_edit';
import { YamlView } from './yaml_view';

// A list's items carry no apiVersion and kind, and the server needs both in
// what it is sent; the page knows them.
type TypeMeta = { apiVersion: string; kind: string };
const editorText = (o: KubeObject, t: TypeMeta) => toYaml(forDisplay({ ...t, ...o, apiVersion: t.apiVersion, kind: t.kind }));

// YamlEditor shows an object's YAML and, for a user who may update it,
// edits it in place. The text is sent as written and the API server judges
// it, so what the page shows on a refusal is the server's own message.
export function YamlEditor({
  object,
  type,
  path,
  check,
}: {
  object: KubeObject | undefined;
  type: TypeMeta;
  path: string;
  check: AccessCheck;
}) {
  // undefined while viewing; the text being edited otherwise.
  const [text, setText] = useState<string>();
  const [problem, setProblem] = useState<SaveProblem>();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const checks = useMemo(() => [check], [checkKey(check)]);
  const access = useAccess(checks);
  const allowed = decide(undefined, check, access);

  if (!object) return <EmptyState titleText="Nothing to show" headingLevel="h3" />;
  const kind = type.kind;

  if (text === undefined) {
    const edit = (
      <Button
        variant="secondary"
        data-testid="yaml-edit"
        isAriaDisabled={!allowed.enabled}
        onClick={() => {
          setSaved(false);
          setProblem(undefined);
          setText(editorText(object, type));
        }}
      >
        Edit
      </Button>
    );
    return (
      <>
        <div style={{ marginBottom: 'var(--pf-t--global--spacer--sm)' }}>{allowed.reason ? <Tooltip content={allowed.reason}>{edit}</Tooltip> : edit}</div>
        {saved && (
          <Alert variant="success" isInline title={`The ${kind} was saved`} data-testid="yaml-saved" actionClose={<AlertActionCloseButton onClose={() => setSaved(false)} />} />
        )}
        <YamlView object={object} />
      </>
    );
  }

  const reload = () => {
    setProblem(undefined);
    setText(editorText(object, type));
  };
  const save = () => {
    setSaving(true);
    setProblem(undefined);
    api
      .replaceYaml<KubeObject>(path, text)
      .then(() => {
        setText(undefined);
        setSaved(true);
      })
      .catch((err: unknown) => setProblem(saveProblem(err instanceof api.ApiError ? err.body : undefined, err instanceof Error ? err.message : String(err))))
      .finally(() => setSaving(false));
  };
  return (
    <>
      <TextArea
        aria-label="YAML"
        data-testid="yaml-editor"
        value={text}
        onChange={(_e, v) => setText(v)}
        resizeOrientation="vertical"
        spellCheck={false}
        autoResize
        style={{ fontFamily: 'var(--pf-t--global--font--family--mono)', fontSize: 'var(--pf-t--global--font--size--sm)', minHeight: '32em' }}
      />
      {/* Next to Save, where the eye is when the answer comes: the text
          above can be longer than the window. */}
      <div style={{ marginTop: 'var(--pf-t--global--spacer--sm)' }}>
        {problem && (
          <Alert variant="danger" isInline title={problem.title} data-testid="yaml-error" style={{ marginBottom: 'var(--pf-t--global--spacer--sm)' }}>
            {problem.causes.map((c) => (
              <div key={c}>{c}</div>
            ))}
            {problem.conflict && (
              <Button variant="link" isInline onClick={reload}>
                Reload the latest version (your edits are dropped)
              </Button>
            )}
          </Alert>
        )}
        {!problem && isStale(text, object) && (
          <Alert variant="warning" isInline title={`The ${kind} changed since you began editing`} data-testid="yaml-stale" style={{ marginBottom: 'var(--pf-t--global--spacer--sm)' }}>
            Saving this text would be refused as a conflict; reload to edit the latest version.
          </Alert>
        )}
      </div>
      <ActionGroup style={{ marginTop: 'var(--pf-t--global--spacer--sm)' }}>
        <Button variant="primary" data-testid="yaml-save" onClick={save} isLoading={saving} isDisabled={saving}>
          Save
        </Button>{' '}
        <Button variant="secondary" data-testid="yaml-reload" onClick={reload} isDisabled={saving}>
          Reload
        </Button>{' '}
        <Button variant="link" onClick={() => setText(undefined)} isDisabled={saving}>
          Cancel
        </Button>
      </ActionGroup>
    </>
  );
}
