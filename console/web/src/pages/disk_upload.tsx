// The Disks page's upload form: a new DataVolume with an upload source,
// then the local file streamed into it once CDI is ready to take it.

import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  ActionGroup,
  Alert,
  Button,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  Progress,
  ProgressMeasureLocation,
  TextInput,
} from '@patternfly/react-core';
import * as api from '../api';
import { NamespaceSelect } from '../components/namespace_select';
import { useWatchList } from '../hooks';
import type { DataVolume } from '../model/types';
import { retryDelay, uploadDataVolume, uploadPercent, uploadReady, validateUpload, type UploadForm } from '../model/upload';

type Stage = 'form' | 'creating' | 'waiting' | 'uploading' | 'sent' | 'failed';

function Errors({ messages }: { messages: (string | undefined)[] }) {
  const ms = messages.filter((m): m is string => !!m);
  if (!ms.length) return null;
  return (
    <FormHelperText>
      <HelperText>
        {ms.map((m) => (
          <HelperTextItem key={m} variant="error">
            {m}
          </HelperTextItem>
        ))}
      </HelperText>
    </FormHelperText>
  );
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

// Watched only once created: before, a watch would find nothing to show.
function useDataVolume(ns: string, name: string, active: boolean): DataVolume | undefined {
  const path = active ? `${api.paths.dataVolumes(ns)}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}` : null;
  return useWatchList<DataVolume>(path).items[0];
}

export function UploadDisk({ namespace, onClose }: { namespace: string; onClose: () => void }) {
  const [form, setForm] = useState<UploadForm>({ namespace, name: '', size: '30Gi', fileName: '' });
  const [file, setFile] = useState<File>();
  const [errors, setErrors] = useState<Partial<Record<keyof UploadForm, string>>>({});
  const [stage, setStage] = useState<Stage>('form');
  const [error, setError] = useState('');
  const [percent, setPercent] = useState<number>();
  const abort = useRef<AbortController>(undefined);
  const dv = useDataVolume(form.namespace, form.name, stage !== 'form' && stage !== 'creating');
  const phase = dv?.status?.phase;

  useEffect(() => () => abort.current?.abort(), []);

  const set = <K extends keyof UploadForm>(k: K, v: UploadForm[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setErrors((e) => ({ ...e, [k]: undefined }));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (stage !== 'form') return;
    const v = validateUpload(form);
    setErrors(v);
    if (Object.keys(v).length || !file) return;
    setError('');
    setStage('creating');
    api
      .createDataVolume(uploadDataVolume(form.namespace, form.name, form.size))
      .then(() => setStage('waiting'))
      .catch((err: unknown) => {
        setError(message(err));
        setStage('form');
      });
  };

  // The image goes once the watch says UploadReady; the proxy's 503 until
  // its pod serves is waited out a few times.
  useEffect(() => {
    if (stage !== 'waiting' || !uploadReady(phase) || !file) return;
    setStage('uploading');
    const ac = new AbortController();
    abort.current = ac;
    const attempt = async (n: number): Promise<void> => {
      try {
        await api.uploadImage(form.namespace, form.name, file, (l, t, c) => setPercent(uploadPercent(l, t, c)), ac.signal);
      } catch (err) {
        const delay = err instanceof api.ApiError ? retryDelay(err.status, n) : undefined;
        if (delay === undefined || ac.signal.aborted) throw err;
        setPercent(undefined);
        await new Promise((r) => setTimeout(r, delay));
        return attempt(n + 1);
      }
    };
    attempt(0)
      .then(() => setStage('sent'))
      .catch((err: unknown) => {
        if (ac.signal.aborted) return;
        setError(message(err));
        setStage('failed');
      });
  }, [stage, phase, file]);

  const busy = stage === 'creating' || stage === 'waiting' || stage === 'uploading';
  const locked = stage !== 'form';

  return (
    <Form onSubmit={submit} maxWidth="40em" data-testid="upload-form" style={{ margin: 'var(--pf-t--global--spacer--md) 0' }}>
      {error && <Alert variant="danger" isInline title="The image was not uploaded" data-testid="upload-error">{error}</Alert>}
      <FormGroup label="Namespace" isRequired fieldId="upload-namespace">
        <NamespaceSelect id="upload-namespace" testId="upload-namespace" allowAll={false} value={form.namespace} onChange={(v) => !locked && set('namespace', v)} />
        <Errors messages={[errors.namespace]} />
      </FormGroup>
      <FormGroup label="DataVolume name" isRequired fieldId="upload-name">
        <TextInput
          id="upload-name"
          data-testid="upload-name"
          value={form.name}
          isDisabled={locked}
          validated={errors.name ? 'error' : 'default'}
          onChange={(_e, v) => set('name', v.trim())}
        />
        <Errors messages={[errors.name]} />
      </FormGroup>
      <FormGroup label="Size" isRequired fieldId="upload-size">
        <TextInput
          id="upload-size"
          data-testid="upload-size"
          value={form.size}
          isDisabled={locked}
          validated={errors.size ? 'error' : 'default'}
          onChange={(_e, v) => set('size', v.trim())}
        />
        <Errors messages={[errors.size]} />
      </FormGroup>
      <FormGroup label="Disk image" isRequired fieldId="upload-file">
        <input
          id="upload-file"
          data-testid="upload-file"
          type="file"
          disabled={locked}
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            setFile(f);
            set('fileName', f?.name ?? '');
          }}
        />
        <Errors messages={[errors.fileName]} />
      </FormGroup>
      {stage !== 'form' && (
        <div data-testid="upload-status">
          {stage === 'creating' && 'Creating the DataVolume…'}
          {stage === 'waiting' && `Waiting for the DataVolume to take the upload (${phase ?? 'Pending'})…`}
          {(stage === 'uploading' || stage === 'sent') && (
            <Progress
              title={stage === 'sent' ? 'Sent' : 'Uploading'}
              value={stage === 'sent' ? 100 : (percent ?? 0)}
              measureLocation={ProgressMeasureLocation.outside}
              variant={stage === 'sent' ? 'success' : undefined}
              aria-label="Upload progress"
              data-testid="upload-progress"
              data-progress={stage === 'sent' ? 100 : (percent ?? 0)}
            />
          )}
          {(stage === 'sent' || stage === 'failed') && (
            <div data-testid="upload-phase" data-phase={phase ?? ''}>
              DataVolume {form.namespace}/{form.name}: {phase ?? 'unknown'}
            </div>
          )}
        </div>
      )}
      <ActionGroup>
        <Button type="submit" variant="primary" data-testid="upload-submit" isDisabled={locked} isLoading={busy}>
          Upload
        </Button>
        <Button
          variant="link"
          data-testid="upload-close"
          onClick={() => {
            abort.current?.abort();
            onClose();
          }}
        >
          {stage === 'sent' || stage === 'failed' ? 'Close' : 'Cancel'}
        </Button>
      </ActionGroup>
    </Form>
  );
}
