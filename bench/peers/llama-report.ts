import type { PairResult } from './precision';
import { rooflineOf } from './roofline';
import type { PeersTarget } from './targets';
import { summaryOf } from './targets';
import type { Precision } from './variants';

/** What llama.cpp's side of the run produced at one thread count: the engine (or why not) and every precision. */
export interface LlamaSection {
  engine: { version: string } | { error: string };
  /** Threads every engine ran with (First Frame's slot, the floor, llama.cpp). */
  numThreads: number;
  /** Prompt length (tokens) of every round in this section (`--prompt-tokens`, one section per value). */
  numPromptTokens: number;
  /** Whether First Frame's slot and floor sessions ran with their threads spinning (the setting `canSpinThreads`). */
  canSpinThreads: boolean;
  pairs: PairResult[];
  bandwidth: { bytesPerS: number; boundary: string } | null;
}

const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a == null || b == null || !(b > 0) ? null : a / b;

/** The JSON of one precision: medians per engine, agreement and the roofline. */
function pairJson(pair: PairResult, bandwidthBytesPerS: number | null) {
  if (pair.status === 'skipped')
    return { precision: pair.precision, status: pair.status, reason: pair.reason };
  const engines = { 'First Frame': pair.ours, floor: pair.floor, 'llama.cpp': pair.llama };
  const summaries = Object.fromEntries(Object.entries(engines).map(([name, s]) => [name, summaryOf(s)]));
  const itl = (name: string) => summaries[name]!.itl_ms.p50;
  return {
    precision: pair.precision,
    status: pair.status,
    /** How the slot ran its K/V, and the floor with it ('bound': written in place). */
    run_path: pair.runPath,
    engines: summaries,
    greedy_check: {
      same: pair.greedyCheck.numSame,
      compared: pair.greedyCheck.numCompared,
      first_different_at: pair.greedyCheck.firstDifferentAt,
    },
    teacher_forced_agreement: pair.agreement.numSame / Math.max(1, pair.agreement.numCompared),
    gguf_made_ms: pair.ggufMadeMs,
    roofline:
      bandwidthBytesPerS === null
        ? null
        : {
            'First Frame': rooflineOf(pair.weightBytesPerToken.ours, itl('First Frame'), bandwidthBytesPerS),
            'llama.cpp': rooflineOf(pair.weightBytesPerToken.llama, itl('llama.cpp'), bandwidthBytesPerS),
          },
  };
}

/** How First Frame's sessions ran their threads in a section: how many, and whether they spun. */
export function oursThreadsText(section: LlamaSection): string {
  if (section.numThreads === 1) return '1 thread (no pool threads to spin or sleep)';
  return section.canSpinThreads
    ? `${section.numThreads} threads, spinning while a run computes (--spin-threads on)`
    : `${section.numThreads} threads, sleeping between kernels (--spin-threads off)`;
}

/** The llama.cpp section of the report (--json prints it as is). */
export function llamaSectionJson(section: LlamaSection) {
  const bandwidth = section.bandwidth;
  return {
    engine: section.engine,
    threads: section.numThreads,
    prompt_tokens: section.numPromptTokens,
    first_frame_threads: oursThreadsText(section),
    read_bandwidth: bandwidth && { gb_per_s: bandwidth.bytesPerS / 1e9, boundary: bandwidth.boundary },
    precisions: section.pairs.map((pair) => pairJson(pair, bandwidth?.bytesPerS ?? null)),
  };
}

const LIMITS: Record<Precision, { itl: number; prefill: number; pair: string }> = {
  f16: { itl: 1.2, prefill: 0.7, pair: 'f16 GGUF ↔ onnx/model.onnx (fp16 weights)' },
  q8: { itl: 0.9, prefill: 0.8, pair: 'q8_0 GGUF ↔ onnx/model_q8.onnx' },
  q4: { itl: 0.9, prefill: 1.0, pair: 'q4_0 GGUF ↔ onnx/model_q4.onnx' },
};

const PRECISION_ORDER = ['q4', 'q8', 'f16'] as const;

/**
 * The llama.cpp targets from this run's medians (null where a precision did not run):
 * decode and prefill ratios at one thread (or the fewest threads run), and q4 decode at every
 * core (`allCores`, when a section ran at that many threads), all at the shortest prompt run.
 */
export function llamaTargets(all: readonly LlamaSection[], allCores: number): PeersTarget[] {
  const shortest = Math.min(...all.map((s) => s.numPromptTokens));
  const sections = all.filter((s) => s.numPromptTokens === shortest);
  const fewest = [...sections].sort((a, b) => a.numThreads - b.numThreads)[0];
  if (!fewest) return [];
  const atAllCores = sections.find((s) => s.numThreads === allCores) ?? null;
  const targets = [
    ...PRECISION_ORDER.map((precision) => itlTarget(fewest, precision, '')),
    ...PRECISION_ORDER.map((precision) => prefillTarget(fewest, precision)),
  ];
  const q4AllThreads = atAllCores
    ? itlTarget(atAllCores, 'q4', '_all_threads')
    : {
        ...itlTarget(fewest, 'q4', '_all_threads'),
        measured: null,
        isMet: null,
        how: `not run: --threads did not include ${allCores} (every core of this machine)`,
      };
  return [...targets, q4AllThreads];
}

/** A section's medians of one precision, or null when it did not run. */
export function mediansOf(section: LlamaSection, precision: Precision) {
  const pair = section.pairs.find((p) => p.precision === precision);
  if (pair?.status !== 'ok') return null;
  return { ours: summaryOf(pair.ours), floor: summaryOf(pair.floor), llama: summaryOf(pair.llama) };
}

/** Why a precision's ratio is what it is: the greedy check's verdict, or why it did not run. */
export function whyOf(section: LlamaSection, precision: Precision): string {
  const pair = section.pairs.find((p) => p.precision === precision);
  if ('error' in section.engine) return `not run: ${section.engine.error}`;
  if (!pair) return 'not run (--precisions)';
  if (pair.status === 'skipped') return `not run: ${pair.reason}`;
  const check = pair.greedyCheck;
  return check.numSame === check.numCompared
    ? `greedy ids agreed (${check.numSame}/${check.numCompared})`
    : `greedy ids differ from position ${check.firstDifferentAt} (${check.numSame}/${check.numCompared} same)`;
}

function itlTarget(section: LlamaSection, precision: Precision, suffix: string): PeersTarget {
  const m = mediansOf(section, precision);
  const value = ratio(m?.ours.itl_ms.p50, m?.llama.itl_ms.p50);
  const limit = LIMITS[precision].itl;
  return {
    name: `decode_itl_ours_over_llamacpp_${precision}${suffix}`,
    measured: value,
    target: `≤ ${limit.toFixed(1)}`,
    isMet: value === null ? null : value <= limit,
    how: `median First Frame inter-token gap ÷ median llama.cpp decode step, ${LIMITS[precision].pair}, ${section.numThreads} thread(s) each (First Frame: ${oursThreadsText(section)}), same ids (llama.cpp teacher-forced on ours); ${whyOf(section, precision)}`,
  };
}

function prefillTarget(section: LlamaSection, precision: Precision): PeersTarget {
  const m = mediansOf(section, precision);
  const value = ratio(m?.ours.ttft_ms.p50, m?.llama.ttft_ms.p50);
  const limit = LIMITS[precision].prefill;
  return {
    name: `prefill_ours_over_llamacpp_${precision}`,
    measured: value,
    target: `≤ ${limit.toFixed(1)}`,
    isMet: value === null ? null : value <= limit,
    how: `median First Frame server TTFT ÷ median llama.cpp prompt evaluation + first greedy token, ${LIMITS[precision].pair}, ${section.numThreads} thread(s) each (First Frame: ${oursThreadsText(section)}), same prompt ids; ${whyOf(section, precision)}`,
  };
}
