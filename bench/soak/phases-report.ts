import type { PhasesResult } from './phases';

/** The phases' report as lines a person reads. */
export function formatPhases(r: PhasesResult): string[] {
  const ms = (value: number | null) => (value === null ? 'n/a' : value.toFixed(1));
  const mb = (value: number) => value.toFixed(1);
  const lines = [
    `soak phases: ${r.phaseSeconds} s each; the host in its own process; probe: a greedy 1-token answer`,
    '  to a two-word chat, sent back to back, latency from request to last byte (nearest rank)',
  ];
  for (const phase of r.phases) {
    lines.push('', `${phase.name}`);
    for (const p of phase.probes)
      lines.push(
        `  probe on ${p.model}: ${p.numChats} chats, p50 ${ms(p.p50Ms)} ms, p95 ${ms(p.p95Ms)} ms${p.numFailed ? `, ${p.numFailed} failed` : ''}`,
      );
    lines.push(
      `  host RSS: before ${mb(phase.rssMb.before)} MB, peak ${mb(phase.rssMb.peak)} MB, after ${mb(phase.rssMb.after)} MB`,
      `  timelines acknowledged in the phase: ${phase.numAcknowledged}`,
      ...Object.entries(phase.byKind).map(([kind, n]) => `  ${String(n).padStart(7)}  ${kind}`),
      ...phase.surprises.map((s) => `  surprise: ${s}`),
    );
  }
  lines.push(
    '',
    `timelines: acknowledged ${r.timelines.numAcknowledged} (timeline.finished events), stored ${r.timelines.numStored}`,
    `host: ${r.host.wasAlive ? 'alive throughout' : 'DIED'}, exit code ${r.host.exitCode} after SIGTERM`,
    ...(r.host.wasAlive ? [] : r.host.stderrTail.map((line) => `  ${line}`)),
    r.isPassed ? 'PASSED' : 'FAILED',
  );
  return lines;
}
