import type { DataVolume } from './types';

// parseProgress reads CDI's DataVolume status.progress ("45.20%", or "N/A"
// before the importer reports) as a percentage in [0, 100], or undefined
// when there is nothing to show.
export function parseProgress(progress: string | number | undefined | null): number | undefined {
  if (progress === undefined || progress === null) return undefined;
  let n: number;
  if (typeof progress === 'number') {
    n = progress;
  } else {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*%?\s*$/.exec(progress);
    if (!m) return undefined;
    n = Number(m[1]);
  }
  if (!Number.isFinite(n)) return undefined;
  return Math.min(100, Math.max(0, n));
}

export interface DiskProgress {
  phase: string;
  // percent is undefined when no bar should be drawn (not started, or the
  // phase has no progress, such as a blank disk).
  percent?: number;
  variant?: 'success' | 'danger';
}

const failedPhases = new Set(['Failed', 'ImportFailed', 'CloneFailed', 'UploadFailed', 'ExpansionFailed']);

export function diskProgress(dv: DataVolume): DiskProgress {
  const phase = dv.status?.phase || 'Pending';
  // A Succeeded DataVolume may still carry the last progress the importer
  // reported ("99.87%"); the disk is complete.
  if (phase === 'Succeeded') return { phase, percent: 100, variant: 'success' };
  const percent = parseProgress(dv.status?.progress);
  if (failedPhases.has(phase)) return { phase, percent, variant: 'danger' };
  return { phase, percent };
}
