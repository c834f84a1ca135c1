import type { LatencyReport, ReportOptions } from '../report/types';
import { buildReport } from '../report/build-report';
import { importTraceLines } from './import-trace';
import { parseTraceLine } from './parse-line';
import type { SeedRecord } from './seed-record';

/** Queue delays (ms) of the positive control's burst: they grow while service stays constant. */
const BURST_QUEUE_MS = [4, 8, 12, 18, 45, 90, 170, 260, 390, 520];

/**
 * The positive control (seed 003): ten 2,048-token prompts a second apart whose queue delay
 * grows through a burst while network in (18 ms), gateway (6 ms), prefill (145 ms), first
 * decode (11 ms), network to first (18 ms) and 64 tokens at 22 ms hold still. At the client
 * boundary queue must come out dominant for TTFT and stream for end to end.
 */
export function positiveControlRecords(): SeedRecord[] {
  return BURST_QUEUE_MS.map((queueMs, i) => {
    const start = (i + 1) * 1_000;
    const queued = start + 24;
    return {
      request_id: `burst-${String(i + 1).padStart(2, '0')}`,
      prompt_tokens: 2_048,
      output_tokens: 65,
      client_send_ms: start,
      gateway_arrival_ms: start + 18,
      queue_enter_ms: queued,
      prefill_start_ms: queued + queueMs,
      prefill_end_ms: queued + queueMs + 145,
      first_token_server_ms: queued + queueMs + 156,
      first_token_client_ms: queued + queueMs + 174,
      last_token_client_ms: queued + queueMs + 174 + 64 * 22,
    };
  });
}

/** The negative control: the first burst record with prefill ending 5 ms before it starts. */
export function negativeControlRecord(): SeedRecord {
  const record = positiveControlRecords()[0]!;
  return { ...record, prefill_end_ms: record.prefill_start_ms - 5 };
}

/** Both controls' outcomes; `isPassed` only when each behaved as it must. */
export interface ControlsResult {
  positive: { report: LatencyReport; isPassed: boolean; problem: string | null };
  negative: { isPassed: boolean; reason: string | null };
  isPassed: boolean;
}

/** Runs both controls through the same import path a trace file takes. */
export async function runControls(options: ReportOptions = {}): Promise<ControlsResult> {
  const lines = positiveControlRecords().map((r) => JSON.stringify(r));
  const { timelines } = await importTraceLines(lines);
  const report = buildReport(timelines, { ...options, boundary: 'client' });
  const phases = report.client?.phases ?? null;
  const ttftPhase = phases?.dominantTtft?.phase ?? null;
  const e2ePhase = phases?.dominantE2e?.phase ?? null;
  const problem =
    ttftPhase !== 'queue' || e2ePhase !== 'stream'
      ? `expected queue / stream dominant at the client boundary, got ${ttftPhase} / ${e2ePhase}`
      : null;
  const parsed = parseTraceLine(JSON.stringify(negativeControlRecord()), null);
  const negative =
    'reason' in parsed ? { isPassed: true, reason: parsed.reason } : { isPassed: false, reason: null };
  return {
    positive: { report, isPassed: problem === null, problem },
    negative,
    isPassed: problem === null && negative.isPassed,
  };
}
