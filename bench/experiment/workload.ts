import type { TextTokenizer } from '../../src-main/runtime/tokenize/tokenizer';
import { prng } from '../../src-main/telemetry/synthetic/workload';
import { importTraceFile } from '../../src-main/telemetry/trace/import-trace';
import { promptOfTokens } from '../first-frame/prompts';
import type { Arrivals } from '../load/arrivals';
import { arrivalsOf } from '../load/arrivals';
import type { PhaseInput } from '../load/driver';
import { formatLengthSpec, independentPairs, lengthSampler } from '../load/lengths';
import type { LengthPair } from '../load/lengths';
import { planRequests } from '../load/plan';
import type { ExperimentConfig } from './args';

/** What every arm replays: the same plan, user messages and arrivals (run ids are per arm). */
export type SharedWorkload = Omit<PhaseInput, 'modelId' | 'runId'>;

/**
 * Builds the workload once, so every arm sees the same arrivals and the same prompt/output
 * lengths. A trace replays its own requests in order: their send times (offsets from the
 * first) and their joint prompt/output lengths, not independent draws.
 */
export async function sharedWorkload(
  config: ExperimentConfig,
  tokenizer: TextTokenizer,
): Promise<SharedWorkload> {
  const { workload } = config;
  let arrivals: Arrivals;
  let pairs: LengthPair[] | null = null;
  let count = config.numRequests;
  if (workload.kind === 'trace') {
    const trace = await traceRequests(workload.path);
    count = Math.min(count, trace.length);
    pairs = trace.slice(0, count).map((t) => t.lengths);
    const first = trace[0]?.sentAt ?? 0;
    arrivals = { kind: 'open', offsetsMs: trace.slice(0, count).map((t) => t.sentAt - first) };
  } else {
    arrivals =
      workload.kind === 'burst'
        ? { kind: 'closed', groupSize: workload.burstSize }
        : arrivalsOf('poisson', count, {
            ratePerS: workload.ratePerS,
            burstSize: 1,
            uniform: prng(config.seed + 7),
          });
  }
  let next = 0;
  const plan = planRequests({
    count,
    multiTurnShare: 0,
    maxTurns: 1,
    // A trace is replayed request by request; otherwise lengths are drawn from the specs.
    lengths: pairs
      ? () => pairs[next++]!
      : independentPairs(lengthSampler(config.promptLengths), lengthSampler(config.outputLengths)),
    uniform: prng(config.seed * 1009 + 1),
    tag: `experiment-${config.seed}`,
    seedBase: (config.seed * 1009 + 1) * 100_000,
  });
  const texts = plan.map((p) => promptOfTokens(tokenizer, p.numUserTokens, p.textSeed));
  return { plan, texts, arrivals };
}

/** The workload as stored in every arm's run config and printed with the table. */
export function describeWorkload(config: ExperimentConfig, numRequests: number) {
  const { workload } = config;
  return {
    arrivals:
      workload.kind === 'burst'
        ? `bursts of ${workload.burstSize} (the next when the last finished)`
        : workload.kind === 'poisson'
          ? `Poisson at ${workload.ratePerS}/s`
          : `trace replay: ${workload.path} (its send times)`,
    requests: numRequests,
    rounds: config.numRounds,
    warmup: config.numWarmup,
    lengths:
      workload.kind === 'trace'
        ? 'each trace request’s own prompt/output lengths (joint)'
        : `prompt ${formatLengthSpec(config.promptLengths)}, output ${formatLengthSpec(config.outputLengths)}`,
    seed: config.seed,
    sampling: 'greedy, through end-of-turn tokens to the planned output length',
  };
}

/** A trace's requests: send instant (client clock where known) and joint lengths, in send order. */
async function traceRequests(path: string): Promise<{ sentAt: number; lengths: LengthPair }[]> {
  const { timelines } = await importTraceFile(path);
  const pool = timelines
    .filter((t) => t.numPromptTokens > 0)
    .map((t) => ({
      sentAt: t.arrivedAt - (t.networkInMs ?? 0),
      lengths: { numPromptTokens: t.numPromptTokens, numOutputTokens: Math.max(1, t.numOutputTokens) },
    }));
  if (pool.length === 0) throw new Error(`${path} holds no requests with a prompt to replay`);
  return pool.sort((a, b) => a.sentAt - b.sentAt);
}
