import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryDelay, uploadDataVolume, uploadPercent, uploadReady, uploadRetries, validateUpload } from './upload';

test('the DataVolume takes an upload of the given size', () => {
  assert.deepEqual(uploadDataVolume('ns', 'disk', '10Gi'), {
    apiVersion: 'cdi.kubevirt.io/v1beta1',
    kind: 'DataVolume',
    metadata: { name: 'disk', namespace: 'ns' },
    spec: { source: { upload: {} }, storage: { resources: { requests: { storage: '10Gi' } } } },
  });
});

test('the form needs a namespace, a valid name and size, and a file', () => {
  assert.deepEqual(validateUpload({ namespace: 'ns', name: 'disk', size: '10Gi', fileName: 'a.qcow2' }), {});
  assert.deepEqual(Object.keys(validateUpload({ namespace: '', name: 'Disk', size: '10 GB', fileName: '' })).sort(), [
    'fileName',
    'name',
    'namespace',
    'size',
  ]);
});

test('progress is whole percents, unknown without a total', () => {
  assert.equal(uploadPercent(0, 200), 0);
  assert.equal(uploadPercent(99, 200), 49);
  assert.equal(uploadPercent(200, 200), 100);
  assert.equal(uploadPercent(300, 200), 100);
  assert.equal(uploadPercent(10, 0), undefined);
  assert.equal(uploadPercent(10, 100, false), undefined);
});

test('only 503 is retried, a bounded number of times', () => {
  assert.equal(retryDelay(503, 0), 2000);
  assert.equal(retryDelay(503, 1), 4000);
  assert.equal(retryDelay(503, uploadRetries), undefined);
  assert.equal(retryDelay(502, 0), undefined);
  assert.equal(retryDelay(400, 0), undefined);
});

test('the image is sent only once the DataVolume is UploadReady', () => {
  assert.equal(uploadReady('UploadReady'), true);
  assert.equal(uploadReady('UploadScheduled'), false);
  assert.equal(uploadReady(undefined), false);
});
