import type { PairResult } from './precision';
import { rooflineOf } from './roofline';
import type { PeersTarget } from './targets';
import { summaryOf } from './targets';
import type { Precision } from './variants';

/** What llama.cpp's side of the run produced: the engine (or why not) and every precision. */
export interface LlamaSection {
  engine: { version: string } | { error: string };
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

/** The llama.cpp section of the report (--json prints it as is). */
export function llamaSectionJson(section: LlamaSection) {
  const bandwidth = section.bandwidth;
  return {
    engine: section.engine,
    read_bandwidth: bandwidth && { gb_per_s: bandwidth.bytesPerS / 1e9, boundary: bandwidth.boundary },
    precisions: section.pairs.map((pair) => pairJson(pair, bandwidth?.bytesPerS ?? null)),
  };
}

const LIMITS: Record<Precision, { itl: number; pair: string }> = {
  f16: { itl: 1.2, pair: 'f16 GGUF ↔ onnx/model.onnx (fp16 weights)' },
  q8: { itl: 1.0, pair: 'q8_0 GGUF ↔ onnx/model_q8.onnx' },
  q4: { itl: 1.0, pair: 'q4_0 GGUF ↔ onnx/model_q4.onnx' },
};

/** The llama.cpp targets from this run's medians (null where a precision did not run). */
export function llamaTargets(section: LlamaSection): PeersTarget[] {
  const byPrecision = new Map(section.pairs.map((p) => [p.precision, p]));
  const medians = (precision: Precision) => {
    const pair = byPrecision.get(precision);
    if (pair?.status !== 'ok') return null;
    return { ours: summaryOf(pair.ours), llama: summaryOf(pair.llama), pair };
  };
  const why = (precision: Precision) => {
    const pair = byPrecision.get(precision);
    if ('error' in section.engine) return `not run: ${section.engine.error}`;
    if (!pair) return 'not run (--precisions)';
    if (pair.status === 'skipped') return `not run: ${pair.reason}`;
    const check = pair.greedyCheck;
    return check.numSame === check.numCompared
      ? `greedy ids agreed (${check.numSame}/${check.numCompared})`
      : `greedy ids differ from position ${check.firstDifferentAt} (${check.numSame}/${check.numCompared} same)`;
  };
  const targets: PeersTarget[] = (['q4', 'q8', 'f16'] as const).map((precision) => {
    const m = medians(precision);
    const value = ratio(m?.ours.itl_ms.p50, m?.llama.itl_ms.p50);
    const limit = LIMITS[precision].itl;
    return {
      name: `decode_itl_ours_over_llamacpp_${precision}`,
      measured: value,
      target: `≤ ${limit.toFixed(1)}`,
      isMet: value === null ? null : value <= limit,
      how: `median First Frame inter-token gap ÷ median llama.cpp decode step, ${LIMITS[precision].pair}, same ids and threads (llama.cpp teacher-forced on ours); ${why(precision)}`,
    };
  });
  const f16 = medians('f16');
  const prefill = ratio(f16?.ours.ttft_ms.p50, f16?.llama.ttft_ms.p50);
  targets.push({
    name: 'prefill_ours_over_llamacpp_f16',
    measured: prefill,
    target: '≤ 0.7',
    isMet: prefill === null ? null : prefill <= 0.7,
    how: `median First Frame server TTFT ÷ median llama.cpp prompt evaluation + first greedy token, same prompt ids; ${why('f16')}`,
  });
  return targets;
}
