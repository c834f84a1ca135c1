import { nearestRankOf } from '../../src-main/telemetry/report/nearest-rank';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { request } from './cases';
import type { CaseContext } from './cases';
import { promptOfTokens } from './prompts';

/** Decode speed of the engine against the raw loop, and batched throughput against one sequence. */
export interface DecodeResult {
  numSteps: number;
  engineItlMedianMs: number;
  rawStepMedianMs: number;
  singleTokensPerS: number;
  concurrentTokensPerS: number;
  numConcurrent: number;
}

/**
 * The nearest-rank median; NaN when there is no value, or when any value is NaN (a run that
 * measured nothing, such as one with no first token): a target computed from it then fails.
 */
export function median(values: readonly number[]): number {
  if (values.some(Number.isNaN)) return Number.NaN;
  return nearestRankOf(values, 0.5) ?? Number.NaN;
}

/** Output tokens per second over the wall time from the first arrival to the last finish. */
function tokensPerS(timelines: readonly Timeline[]): number {
  const startAt = Math.min(...timelines.map((t) => t.arrivedAt));
  const endAt = Math.max(...timelines.map((t) => t.finishedAt));
  return timelines.reduce((sum, t) => sum + t.numOutputTokens, 0) / ((endAt - startAt) / 1000);
}

/** Measures decode ITL at one sequence (engine vs raw loop) and tokens/s at 1 vs N sequences. */
export async function measureDecode(
  ctx: CaseContext,
  numSteps: number,
  numConcurrent: number,
): Promise<DecodeResult> {
  const text = promptOfTokens(ctx.folder.tokenizer, 32, 4000);
  const ids = ctx.folder.tokenizer.encode(text);
  const engineGaps: number[] = [];
  const rawSteps: number[] = [];
  for (let i = 0; i < 3; i++) {
    engineGaps.push(...(await request(ctx.unpaged, ctx.modelId, text, numSteps + 1)).timeline.itlMs);
    rawSteps.push(...(await ctx.floor.decodeStepsMs(ids, numSteps)));
    ctx.onProgress(`decode ${i + 1}/3`);
  }
  const single = (await request(ctx.unpaged, ctx.modelId, text, numSteps)).timeline;
  const prompts = Array.from({ length: numConcurrent }, (_, i) =>
    promptOfTokens(ctx.folder.tokenizer, 32, 5000 + i),
  );
  const concurrent = (
    await Promise.all(prompts.map((p) => request(ctx.unpaged, ctx.modelId, p, numSteps)))
  ).map((m) => m.timeline);
  ctx.onProgress('throughput');
  return {
    numSteps,
    engineItlMedianMs: median(engineGaps),
    rawStepMedianMs: median(rawSteps),
    singleTokensPerS: tokensPerS([single]),
    concurrentTokensPerS: tokensPerS(concurrent),
    numConcurrent,
  };
}
