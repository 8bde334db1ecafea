// Ages read as kubectl prints them (k8s.io/apimachinery's HumanDuration), so
// the console and `kubectl get` agree on what "3d4h" means.

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / second);
  // Up to a second of clock skew between browser and cluster reads as "now"
  // rather than as an error.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(ms / minute);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(ms / hour);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(ms / day);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

// age answers "" for an object without a timestamp (one the API server has
// not persisted yet) rather than a misleading "0s".
export function age(timestamp: string | undefined, now: number): string {
  if (!timestamp) return '';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '';
  return humanDuration(now - t);
}
