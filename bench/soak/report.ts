/** What one soak run measured. */
export interface SoakResult {
  minutes: number;
  numClients: number;
  modelId: string;
  tally: { numServed: number; byKind: Record<string, number>; surprises: string[] };
  timelines: { numAcknowledged: number; numStored: number; numImported: number; numImportStored: number };
  rssMb: { start: number; peak: number; end: number };
  numLocksHeld: number;
  notes: string[];
  host: { wasAlive: boolean; exitCode: number | null; stderrTail: string[] };
  isPassed: boolean;
}

/** The soak's report as lines a person reads. */
export function formatSoak(r: SoakResult): string[] {
  const mb = (value: number) => `${value.toFixed(1)} MB`;
  const kinds = Object.entries(r.tally.byKind).map(([kind, n]) => `  ${String(n).padStart(7)}  ${kind}`);
  return [
    `soak: ${r.minutes.toFixed(1)} min, ${r.numClients} clients, model ${r.modelId}; the host in its own process`,
    'workload: weighted mix of page loads, status calls, chat completions (plain and streamed), chat.send,',
    '  CSV exports, hang-ups mid-stream and on the event stream, bad request lines, prompts near the body',
    '  limit and at the character bound, 200,000-character chat messages, oversized bodies, bad JSON,',
    '  formula model names, hostile trace imports; another process holds the history lock 15 s every',
    '  2 min; one 50 MB trace import a third of the way in',
    `requests served: ${r.tally.numServed}`,
    'answers by kind (an expected refusal is not an error; surprises are):',
    ...kinds,
    `surprises: ${r.tally.surprises.length}${r.tally.surprises.length ? `\n  ${r.tally.surprises.join('\n  ')}` : ''}`,
    `timelines: acknowledged ${r.timelines.numAcknowledged} (timeline.finished events), stored ${r.timelines.numStored}`,
    `imported timelines: acknowledged ${r.timelines.numImported}, stored ${r.timelines.numImportStored}`,
    `history lock held by another process: ${r.numLocksHeld} time(s)`,
    ...r.notes,
    `host RSS: start ${mb(r.rssMb.start)}, peak ${mb(r.rssMb.peak)}, end ${mb(r.rssMb.end)}`,
    `host: ${r.host.wasAlive ? 'alive throughout' : 'DIED'}, exit code ${r.host.exitCode} after SIGTERM`,
    ...(r.host.wasAlive ? [] : r.host.stderrTail.map((line) => `  ${line}`)),
    r.isPassed ? 'PASSED' : 'FAILED',
  ];
}
