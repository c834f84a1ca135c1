import type { PhasesResult } from './phases';

/** The phases' report as lines a person reads. */
export function formatPhases(r: PhasesResult): string[] {
  const ms = (value: number | null) => (value === null ? 'n/a' : value.toFixed(1));
  const mb = (value: number) => value.toFixed(1);
  const lines = [
    `soak phases: each input for ${r.phaseSeconds} s after a ${r.phaseSeconds / 2} s baseline without it; the host in its own`,
    '  process; probe: a greedy 1-token answer to a two-word chat, sent back to back, latency from',
    '  request to last byte (nearest rank)',
  ];
  for (const phase of r.phases) {
    lines.push('', `${phase.name}`);
    phase.during.forEach((p, i) => {
      const b = phase.baseline[i]!;
      lines.push(
        `  probe on ${p.model}: p50/p95 ${ms(b.p50Ms)}/${ms(b.p95Ms)} ms before (${b.numChats} chats), ` +
          `${ms(p.p50Ms)}/${ms(p.p95Ms)} ms during (${p.numChats} chats)${p.numFailed + b.numFailed ? `, ${p.numFailed + b.numFailed} failed` : ''}`,
      );
    });
    lines.push(
      `  host RSS: before ${mb(phase.rssMb.before)} MB, peak ${mb(phase.rssMb.peak)} MB, after ${mb(phase.rssMb.after)} MB`,
      `  timelines acknowledged during the input: ${phase.numAcknowledged}; events offered to each event client: ${mb(phase.numEventChars / 2 ** 20)} MB`,
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
