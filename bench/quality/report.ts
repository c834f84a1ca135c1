import { nearestRankOf } from '../../src-main/telemetry/report/nearest-rank';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import type { HeldOutText } from './held-out';
import { agreementOf, meanTokensBeforeDivergence } from './measure';
import type { GreedyRun, TextScore } from './measure';
import { print } from '../../src-main/printable';

/** What was measured for one variant. */
export interface VariantQuality {
  model: CatalogueModel;
  score: TextScore;
  greedy: GreedyRun[];
}

/** Bits per weight of a storage label's main part (`fp16` → 16, `int4 + fp32` → 4). */
function precisionBits(weightDtype: string): number {
  const main = weightDtype.split(' + ')[0] ?? '';
  const bits = Number(/(\d+)/.exec(main)?.[1]);
  return Number.isFinite(bits) ? bits : 0;
}

/** The highest-precision variant (most bits per weight; the earlier file on a tie): everyone's reference. */
export function referenceOf(models: readonly CatalogueModel[]): CatalogueModel {
  return [...models].sort(
    (a, b) => precisionBits(b.graph.weightDtype) - precisionBits(a.graph.weightDtype),
  )[0]!;
}

function median(values: number[]): number | null {
  return nearestRankOf(values, 0.5);
}

/** The report: workload, boundary, statistic, and per variant bits/byte and agreement (reference first). */
export function qualityJson(
  modelDir: string,
  text: HeldOutText,
  workload: { numPrompts: number; numTokens: number },
  numThreads: number,
  measured: VariantQuality[],
) {
  const reference = measured[0]!;
  const referenceBpb = reference.score.numBits / reference.score.numBytes;
  return {
    benchmark: 'quality',
    model: { path: modelDir, name: reference.model.name },
    reference: { variant: reference.model.variant, weight_dtype: reference.model.graph.weightDtype },
    text: {
      source: 'resources/eval/austen-held-out.json (held out of ff-austen-mini training)',
      documents: text.documents.length,
      bytes: reference.score.numBytes,
      sha256: text.sha256,
    },
    workload: { prompts: workload.numPrompts, tokens_per_prompt: workload.numTokens, threads: numThreads },
    boundary: 'bare forwards on the bench thread (no engine): the weights and graph alone',
    statistic:
      'bits_per_byte = Σ −log2 p(token | all before) / UTF-8 bytes; agreement = share of greedy tokens equal to the reference at the same position (N prompts × M tokens; after a first difference the continuations usually part, so tokens_before_divergence = mean run of equal tokens); top1_agreement = share of held-out positions with the same argmax; decode_ms_per_token = median bare decode step',
    variants: measured.map(({ model, score, greedy }) => {
      const bitsPerByte = score.numBits / score.numBytes;
      return {
        variant: model.variant,
        file: model.graph.file,
        weight_dtype: model.graph.weightDtype,
        weight_bytes: model.graph.weightBytes,
        bits_per_byte: bitsPerByte,
        bits_per_byte_vs_reference_pct: ((bitsPerByte - referenceBpb) / referenceBpb) * 100,
        agreement: agreementOf(
          greedy.map((g) => g.tokens),
          reference.greedy.map((g) => g.tokens),
        ),
        tokens_before_divergence: meanTokensBeforeDivergence(
          greedy.map((g) => g.tokens),
          reference.greedy.map((g) => g.tokens),
        ),
        top1_agreement: agreementOf([score.top1], [reference.score.top1]),
        scored_tokens: score.numScoredTokens,
        decode_ms_per_token: median(greedy.flatMap((g) => g.stepMs)),
      };
    }),
  };
}

/** The report as a table. */
export function printQuality(report: ReturnType<typeof qualityJson>): void {
  print(
    `quality — ${report.model.name}: ${report.text.documents} held-out documents (${report.text.bytes} bytes), ` +
      `${report.workload.prompts} greedy prompts × ${report.workload.tokens_per_prompt} tokens, reference ${report.reference.variant}`,
  );
  print(
    'variant     weights        MB   bits/byte   vs ref   agreement   same-run   top-1   decode ms/token',
  );
  for (const v of report.variants)
    print(
      `${v.variant.padEnd(10)}  ${v.weight_dtype.padEnd(10)} ${(v.weight_bytes / 1e6).toFixed(1).padStart(6)}   ` +
        `${v.bits_per_byte.toFixed(4).padStart(9)}  ${`${v.bits_per_byte_vs_reference_pct >= 0 ? '+' : ''}${v.bits_per_byte_vs_reference_pct.toFixed(2)}%`.padStart(7)}` +
        `   ${v.agreement.toFixed(3).padStart(9)}   ${v.tokens_before_divergence.toFixed(1).padStart(8)}   ${v.top1_agreement.toFixed(3)}   ${v.decode_ms_per_token?.toFixed(2) ?? '–'}`,
    );
  print(report.statistic);
}
