// Uploading a local disk image into a new DataVolume: the DataVolume the
// console creates, when the proxy may take the image, and the bar's value.

const labelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const quantityRe = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

export interface UploadForm {
  namespace: string;
  name: string;
  size: string;
  fileName: string;
}

export interface UploadDataVolume {
  apiVersion: 'cdi.kubevirt.io/v1beta1';
  kind: 'DataVolume';
  metadata: { name: string; namespace: string };
  spec: { source: { upload: Record<string, never> }; storage: { resources: { requests: { storage: string } } } };
}

export function uploadDataVolume(namespace: string, name: string, size: string): UploadDataVolume {
  return {
    apiVersion: 'cdi.kubevirt.io/v1beta1',
    kind: 'DataVolume',
    metadata: { name, namespace },
    spec: { source: { upload: {} }, storage: { resources: { requests: { storage: size } } } },
  };
}

export function validateUpload(f: UploadForm): Partial<Record<keyof UploadForm, string>> {
  const e: Partial<Record<keyof UploadForm, string>> = {};
  if (!f.namespace) e.namespace = 'Choose a namespace.';
  if (!f.name) e.name = 'Enter a name.';
  else if (!labelRe.test(f.name) || f.name.length > 63)
    e.name = 'Use at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit.';
  if (!quantityRe.test(f.size)) e.size = 'Enter a size such as 30Gi.';
  if (!f.fileName) e.fileName = 'Choose a disk image file.';
  return e;
}

// uploadPercent is the bar's value from XMLHttpRequest's progress events,
// whole percents in [0, 100], or undefined while the size is unknown.
export function uploadPercent(loaded: number, total: number, lengthComputable = true): number | undefined {
  if (!lengthComputable || !(total > 0) || !Number.isFinite(loaded)) return undefined;
  return Math.min(100, Math.max(0, Math.floor((loaded / total) * 100)));
}

// The proxy answers 503 while the upload pod is not serving yet, though the
// DataVolume already says UploadReady; a short wait then a retry fixes it.
export const uploadRetries = 5;
export function retryDelay(status: number, attempt: number): number | undefined {
  if (status !== 503 || attempt >= uploadRetries) return undefined;
  return 2000 * (attempt + 1);
}

// The DataVolume takes the image once it is UploadReady; later phases mean
// the upload is running or done, and a failed one never takes it.
export function uploadReady(phase: string | undefined): boolean {
  return phase === 'UploadReady';
}
