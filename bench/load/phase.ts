import { randomUUID } from 'node:crypto';
import type { TextTokenizer } from '../../src-main/runtime/tokenize/tokenizer';
import { buildReport } from '../../src-main/telemetry/report/build-report';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { prng } from '../../src-main/telemetry/synthetic/workload';
import { promptOfTokens } from '../first-frame/prompts';
import type { LoadConfig } from './args';
import { arrivalsOf } from './arrivals';
import type { RequestRecord } from './driver';
import { runPhaseInWorker } from './worker-driver';
import { formatLengthSpec } from './lengths';
import type { PairSampler } from './lengths';
import type { LoadHost } from './load-host';
import type { PhaseReport } from './output';
import { planRequests } from './plan';
import { reportClientFigures } from './report-clients';
import { ProgressBar } from './progress';
import { isOk, summarize } from './summary';

/** What every phase shares: the host, the tokenizer prompts are measured in, the config. */
export interface PhaseContext {
  host: LoadHost;
  tokenizer: TextTokenizer;
  config: LoadConfig;
  /** Each request's prompt and output lengths. */
  lengths: PairSampler;
}

/** One measured phase: its report, the client's records and the run's timelines. */
export interface MeasuredPhase {
  report: PhaseReport;
  records: RequestRecord[];
  /** The server's own in-process; a remote engine's at the client boundary. */
  timelines: Timeline[];
}

/** Conversations never grow past this many turns (then a follow-up picks another). */
const MAX_TURNS = 8;

/** The workload of one phase as stored in its run's config and printed in the report. */
export function workloadOf(config: LoadConfig, ratePerS: number | null) {
  return {
    profile: config.profile === 'sweep' ? 'poisson (sweep)' : config.profile,
    rate_per_s: ratePerS,
    burst: config.profile === 'burst' ? config.burstSize : null,
    requests: config.numRequests,
    warmup: config.numWarmup,
    prompt_tokens: formatLengthSpec(config.promptLengths),
    output_tokens: formatLengthSpec(config.outputLengths),
    multi_turn_share: config.multiTurnShare,
    max_turns: MAX_TURNS,
    seed: config.seed,
    sampling: 'greedy (temperature 0), streamed with include_usage',
  };
}

/** Sends the warm-up requests one at a time (slot load, first-run costs); nothing is kept. */
export async function warmUp(ctx: PhaseContext): Promise<void> {
  if (ctx.config.numWarmup === 0) return;
  await sendPlan(ctx, {
    index: -1,
    rate: null,
    runId: null,
    count: ctx.config.numWarmup,
    label: 'warm-up (excluded)',
  });
}

/** Runs one measured phase at `ratePerS` (null for sync/burst): files a run, sends, summarises. */
export async function measurePhase(
  ctx: PhaseContext,
  index: number,
  ratePerS: number | null,
): Promise<MeasuredPhase> {
  const { config, host } = ctx;
  const label =
    ratePerS === null
      ? config.profile
      : `${config.profile === 'sweep' ? 'poisson' : config.profile} ${ratePerS}/s`;
  const run = host.createRun(`load ${label} (seed ${config.seed})`, {
    ...host.runtimeFacts(),
    workload: workloadOf(config, ratePerS),
  });
  const runId = run?.runId ?? null;
  await host.beforePhase();
  const records = await sendPlan(ctx, { index, rate: ratePerS, runId, count: config.numRequests, label });
  await reportClientFigures(host, records);
  const { serverPhases } = await host.afterPhase(runId, records);
  const timelines = runId ? host.timelinesOf(runId) : [];
  const server = timelines.length === 0 ? null : serverView(buildReport(timelines, { slo: config.slo }));
  const storedRunId = run?.isStored ? runId : null;
  const summary = summarize(records, config.slo);
  return {
    report: { label, ratePerS, runId: storedRunId, summary, server, serverPhases },
    records,
    timelines,
  };
}

/**
 * The report module's view of the stored timelines: the server's totals and dominant part,
 * and seed 003's seven phases at the client boundary (this client shares the server's clock,
 * so both network legs are measured apart), with goodput at the client boundary.
 */
function serverView(report: ReturnType<typeof buildReport>): Record<string, unknown> {
  const { ttft, itl, e2e, dominantTtftPhase, throughput, goodput, littlesLaw, client } = report;
  return {
    boundary: report.boundaries,
    ttft,
    itl,
    e2e,
    dominant_ttft_phase: dominantTtftPhase,
    client_phases: client?.phases ?? null,
    broken_measurements: client?.broken ?? null,
    throughput,
    goodput,
    littles_law: littlesLaw,
  };
}

async function sendPlan(
  ctx: PhaseContext,
  phase: { index: number; rate: number | null; runId: string | null; count: number; label: string },
): Promise<RequestRecord[]> {
  const { config } = ctx;
  const phaseSeed = config.seed * 1009 + phase.index + 1;
  const uniform = prng(phaseSeed);
  const plan = planRequests({
    count: phase.count,
    multiTurnShare: config.multiTurnShare,
    maxTurns: MAX_TURNS,
    lengths: ctx.lengths,
    uniform,
    tag: `load-${phase.runId ?? randomUUID().slice(0, 8)}`,
    seedBase: phaseSeed * 100_000,
  });
  const texts = plan.map((p) => promptOfTokens(ctx.tokenizer, p.numUserTokens, p.textSeed));
  const profile = config.profile === 'sweep' ? 'poisson' : config.profile;
  const arrivals =
    phase.index < 0
      ? ({ kind: 'closed', groupSize: 1 } as const)
      : arrivalsOf(profile, plan.length, {
          ratePerS: phase.rate ?? 1,
          burstSize: config.burstSize,
          uniform: prng(phaseSeed + 7),
        });
  const bar = new ProgressBar(phase.label, plan.length);
  let numOk = 0;
  let numRejected = 0;
  const records = await runPhaseInWorker(
    ctx.host.target,
    {
      plan,
      texts,
      arrivals,
      modelId: ctx.host.modelId,
      runId: phase.runId,
      remote: ctx.host.remote
        ? { isExtended: ctx.host.remote.isExtended, isOllamaNative: ctx.host.remote.isOllamaNative }
        : null,
    },
    (record) => {
      if (isOk(record)) numOk++;
      else if (record.seen.httpStatus === 429) numRejected++;
      bar.tick(`ok ${numOk} rejected ${numRejected}`);
    },
  );
  bar.done();
  return records;
}
