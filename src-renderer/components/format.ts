/** Milliseconds for people: 0.42 ms, 12.3 ms, 1,234 ms, 12.3 s. Null prints as an en dash. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (Math.abs(ms) >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (Math.abs(ms) >= 100) return `${Math.round(ms).toLocaleString('en-US')} ms`;
  if (Math.abs(ms) >= 1) return `${ms.toFixed(1)} ms`;
  if (ms === 0) return '0 ms';
  return `${ms.toFixed(2)} ms`;
}

/** A signed duration (transport differences): +3.1 ms, −0.4 ms. */
export function formatSignedMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return `${ms < 0 ? '−' : '+'}${formatMs(Math.abs(ms))}`;
}

/** A 0..1 share as a percentage with one decimal. */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(1)}%`;
}

/** Bytes in binary units: 512 B, 1.5 MiB, 2.0 GiB. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A count with thousands separators. */
export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString('en-US');
}

/** A wall-clock instant as local time of day (hh:mm:ss). */
export function formatClock(wallMs: number): string {
  return new Date(wallMs).toLocaleTimeString('en-GB', { hour12: false });
}
