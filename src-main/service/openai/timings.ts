import type { TtftPart } from '../../telemetry/timeline/parts';
import type { FinishReason, Timeline } from '../../telemetry/timeline/schema';
import { partColumn } from '../../telemetry/timeline/columns';
import { TTFT_PARTS } from '../../telemetry/timeline/parts';

/** OpenAI's `usage`, with the cached prompt tokens (context pages that were hits). */
export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

type PartKey = `${string}_ms`;

/**
 * Our extra `timings` object: server TTFT and each of its parts (docs/design.md, snake_case, ms,
 * summing to `ttft_ms` with `unattributed_ms`), decode and end-to-end time, and the
 * llama.cpp-style counters a client of that server already reads. docs/openai-api.md maps
 * every field to Ollama's `*_duration` and llama.cpp's `timings`.
 */
export type OpenAiTimings = Record<PartKey, number | null> & {
  ttft_ms: number | null;
  unattributed_ms: number;
  decode_ms: number | null;
  e2e_ms: number;
  itl_mean_ms: number | null;
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  prompt_per_second: number | null;
  predicted_n: number;
  predicted_ms: number | null;
  predicted_per_second: number | null;
  finish_reason: FinishReason;
  is_cold_slot: boolean;
  num_preemptions: number;
};

/** Server-side timings are ms with three decimals (µs): enough, and short on the wire. */
const round = (ms: number): number => Math.round(ms * 1000) / 1000;
const perSecond = (count: number, ms: number | null): number | null =>
  ms && ms > 0 && count > 0 ? round((count * 1000) / ms) : null;

/** `slotLoad` → `slot_load_ms` (the telemetry's one naming rule). */
export function partKey(part: TtftPart): PartKey {
  return partColumn(part) as PartKey;
}

/** `usage` from a finished timeline. */
export function usageOf(timeline: Timeline): OpenAiUsage {
  return {
    prompt_tokens: timeline.numPromptTokens,
    completion_tokens: timeline.numOutputTokens,
    total_tokens: timeline.numPromptTokens + timeline.numOutputTokens,
    prompt_tokens_details: { cached_tokens: timeline.numCachedTokens },
  };
}

/** `timings` from a finished timeline; decode runs from the first flush to the finish. */
export function timingsOf(timeline: Timeline): OpenAiTimings {
  const parts = Object.fromEntries(TTFT_PARTS.map((p) => [partKey(p), round(timeline.parts[p])])) as Record<
    PartKey,
    number
  >;
  const decodeMs = timeline.firstTokenAt === null ? null : round(timeline.finishedAt - timeline.firstTokenAt);
  const numGaps = timeline.itlMs.length;
  const numUncached = timeline.numPromptTokens - timeline.numCachedTokens;
  return {
    ttft_ms: timeline.ttftMs === null ? null : round(timeline.ttftMs),
    ...parts,
    unattributed_ms: round(timeline.unattributedMs),
    decode_ms: decodeMs,
    e2e_ms: round(timeline.e2eMs),
    itl_mean_ms: numGaps === 0 ? null : round(timeline.itlMs.reduce((a, b) => a + b, 0) / numGaps),
    cache_n: timeline.numCachedTokens,
    prompt_n: numUncached,
    prompt_ms: round(timeline.parts.prefill),
    prompt_per_second: perSecond(numUncached, timeline.parts.prefill),
    predicted_n: timeline.numOutputTokens,
    predicted_ms: decodeMs,
    predicted_per_second: perSecond(numGaps, decodeMs),
    finish_reason: timeline.finishReason,
    is_cold_slot: timeline.isColdSlot,
    num_preemptions: timeline.numPreemptions,
  };
}
