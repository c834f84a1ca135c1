import type { KeepAlive } from '../../../src-main/telemetry/residency/schema';

/** The keep-alive choices a slot card offers. */
export const KEEP_ALIVE_CHOICES: { label: string; keepAlive: KeepAlive }[] = [
  { label: '5 min', keepAlive: { kind: 'ms', ms: 5 * 60_000 } },
  { label: '30 min', keepAlive: { kind: 'ms', ms: 30 * 60_000 } },
  { label: 'forever', keepAlive: { kind: 'forever' } },
  { label: 'unload after each request', keepAlive: { kind: 'unload-after-request' } },
];

/** A keep-alive setting in words. */
export function describeKeepAlive(k: KeepAlive): string {
  if (k.kind === 'forever') return 'forever';
  if (k.kind === 'unload-after-request') return 'unload after request';
  return k.ms >= 60_000 ? `${Math.round(k.ms / 60_000)} min idle` : `${Math.round(k.ms / 1000)} s idle`;
}

/** Time left before an idle slot unloads, as m:ss, or a reason there is no countdown. */
export function countdown(expiresAtWallMs: number | null, nowMs: number): string {
  if (expiresAtWallMs === null) return 'no countdown';
  const leftS = Math.max(0, Math.round((expiresAtWallMs - nowMs) / 1000));
  return `${Math.floor(leftS / 60)}:${String(leftS % 60).padStart(2, '0')} left`;
}
