import type { Percentiles } from '../load/summary';
import { percentiles } from '../load/summary';
import type { Samples, TurnRow } from './measure';

/** A target with what was measured and how, so a reader sees the number and the verdict. */
export interface PeersTarget {
  name: string;
  measured: number | null;
  target: string;
  isMet: boolean | null;
  how: string;
}

/** TTFT and ITL percentiles of one engine. */
export const summaryOf = (samples: Samples): { ttft_ms: Percentiles; itl_ms: Percentiles } => ({
  ttft_ms: percentiles(samples.ttftMs),
  itl_ms: percentiles(samples.itlMs),
});

const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a == null || b == null || !(b > 0) ? null : a / b;

/** Inputs of the targets: the three cases' numbers. */
export interface TargetInputs {
  single: { ours: Samples; floor: Samples; peer: Samples | null };
  turns: TurnRow[];
  oursTokensPerS: number;
  peerTokensPerS: number | null;
}

/** The targets, from this run's numbers only. */
export function peersTargets(input: TargetInputs): PeersTarget[] {
  const ours = summaryOf(input.single.ours);
  const floor = summaryOf(input.single.floor);
  const last = input.turns.at(-1);
  const ttftRatio = ratio(ours.ttft_ms.p50, floor.ttft_ms.p50);
  const itlRatio = ratio(ours.itl_ms.p50, floor.itl_ms.p50);
  const turnRatio = ratio(last?.oursTtftMs, last?.peerTtftMs);
  const throughputRatio = ratio(input.oursTokensPerS, input.peerTokensPerS);
  const check = (value: number | null, isMet: (v: number) => boolean) =>
    value === null ? null : isMet(value);
  return [
    {
      name: 'single_turn_ttft_ours_over_floor',
      measured: ttftRatio,
      target: '≤ 1.10',
      isMet: check(ttftRatio, (v) => v <= 1.1),
      how: 'median server TTFT ÷ median floor prefill of the same token ids',
    },
    {
      name: 'single_turn_itl_ours_over_floor',
      measured: itlRatio,
      target: '≤ 1.10',
      isMet: check(itlRatio, (v) => v <= 1.1),
      how: 'median inter-token gap ÷ median raw decode step (same prompts, same number of steps)',
    },
    {
      name: `turn_${last?.turn ?? '?'}_ttft_ours_over_peer`,
      measured: turnRatio,
      target: '≤ 0.25',
      isMet: check(turnRatio, (v) => v <= 0.25),
      how: 'last turn of the multi-turn conversation: First Frame TTFT (context pages on) ÷ peer TTFT on the same prompt',
    },
    {
      name: 'concurrent_throughput_ours_over_peer_sequential',
      measured: throughputRatio,
      target: '≥ 2.0',
      isMet: check(throughputRatio, (v) => v >= 2),
      how: 'output tokens/s, First Frame with the conversations at once (first arrival → last finish) ÷ peer on the same prompts one at a time (sum of generate() walls)',
    },
  ];
}

/** The figures servingTargets judges (bytes, ms), or null where a run failed. */
export interface ServingTargetInputs {
  oursServingRssBytes: number | null;
  peerServingRssBytes: number | null;
  dataFolderBytes: number;
  ggufBytes: number;
  oursColdFirstTokenMs: number | null;
  oursWarmFirstTokenMs: number | null;
  peerFirstTokenMs: number | null;
  conversionPeakRssBytes: number | null;
}

/** Bound on the conversion's resident memory, whatever the model's size (bytes). */
const CONVERSION_PEAK_BYTES = 2 ** 30;

/** A real-size GGUF's targets: memory and disk beside llama.cpp's and the file's, and the two starts. */
export function servingTargets(input: ServingTargetInputs): PeersTarget[] {
  const target = (name: string, measured: number | null, bound: number, how: string): PeersTarget => ({
    name,
    measured,
    target: `≤ ${bound}`,
    isMet: measured === null ? null : measured <= bound,
    how,
  });
  return [
    target(
      'serving_rss_ours_over_llama_cpp',
      ratio(input.oursServingRssBytes, input.peerServingRssBytes),
      1.2,
      'resident memory after answering one 16-token request, each engine alone in its own process (First Frame warm) ÷ llama.cpp',
    ),
    target(
      'data_folder_bytes_over_gguf',
      ratio(input.dataFolderBytes, input.ggufBytes),
      1.2,
      "bytes on disk First Frame's data folder holds after the file's first load ÷ the GGUF's size",
    ),
    target(
      'cold_first_token_over_llama_cpp_load',
      ratio(input.oursColdFirstTokenMs, input.peerFirstTokenMs),
      2,
      'First Frame, empty data folder: runtime start (file listed) → conversion → slot load → first token, ÷ llama.cpp open → first token',
    ),
    target(
      'warm_first_token_over_llama_cpp_load',
      ratio(input.oursWarmFirstTokenMs, input.peerFirstTokenMs),
      1.5,
      'First Frame restarted on the converted file: runtime start → slot load → first token, ÷ llama.cpp open → first token',
    ),
    target(
      'conversion_peak_rss_gib',
      input.conversionPeakRssBytes === null ? null : input.conversionPeakRssBytes / CONVERSION_PEAK_BYTES,
      1,
      "the cold process's resident memory, sampled at each conversion progress report (the runtime's own included), in GiB",
    ),
  ];
}
