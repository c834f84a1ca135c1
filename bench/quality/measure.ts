import { KvBatch } from '../../src-main/runtime/slot-worker/kv-batch';
import { lastLogits, logitsAt } from '../../src-main/runtime/slot-worker/model-runner';
import type { ModelRunner } from '../../src-main/runtime/slot-worker/model-runner';
import { argmax } from '../../src-main/runtime/sampling/sampler';

/** One held-out document, tokenized: `prefix` is context only (bos), `scored` the ids whose probability counts. */
export interface ScoredText {
  prefix: number[];
  scored: number[];
  numBytes: number;
}

/** Bits the model spends on the held-out text, and its top-1 guess at every scored position. */
export interface TextScore {
  numBits: number;
  numBytes: number;
  numScoredTokens: number;
  /** argmax of the logits that predict each scored token, in order over all documents. */
  top1: number[];
}

/** Positions per forward while scoring: long documents go through in chunks on top of their past. */
const SCORE_CHUNK = 256;

/**
 * Bits per byte: −log2 p(token | everything before it), summed over every scored token of every
 * document, divided by the documents' UTF-8 bytes. Exact full-context scoring (chunks carry K/V).
 */
export async function scoreText(runner: ModelRunner, texts: readonly ScoredText[]): Promise<TextScore> {
  const score: TextScore = { numBits: 0, numBytes: 0, numScoredTokens: 0, top1: [] };
  for (const text of texts) {
    const ids = [...text.prefix, ...text.scored];
    let batch = KvBatch.empty(runner.geometry, ['score']);
    for (let start = 0; start < ids.length - 1; start += SCORE_CHUNK) {
      const chunk = ids.slice(start, Math.min(ids.length - 1, start + SCORE_CHUNK));
      const result = await runner.forward(batch, BigInt64Array.from(chunk, BigInt), chunk.length, 'all');
      batch = batch.advanced(result.kv, chunk.length);
      for (let i = 0; i < chunk.length; i++) {
        const target = start + i + 1;
        if (target < text.prefix.length) continue;
        const logits = logitsAt(result, 0, i);
        score.numBits += -logProbability(logits, ids[target]!) / Math.LN2;
        score.top1.push(argmax(logits));
        score.numScoredTokens += 1;
      }
    }
    score.numBytes += text.numBytes;
  }
  return score;
}

/** ln softmax(logits)[id], computed stably. */
function logProbability(logits: Float32Array, id: number): number {
  let max = -Infinity;
  for (const value of logits) if (value > max) max = value;
  let sum = 0;
  for (const value of logits) sum += Math.exp(value - max);
  return logits[id]! - max - Math.log(sum);
}

/** A greedy continuation and the bare per-step time of its decode forwards. */
export interface GreedyRun {
  tokens: number[];
  stepMs: number[];
}

/** Greedy decode of `numTokens` tokens after `prompt`, feeding present back as past (no engine). */
export async function greedyContinuation(
  runner: ModelRunner,
  prompt: readonly number[],
  numTokens: number,
  vocabLimit: number,
): Promise<GreedyRun> {
  let batch = KvBatch.empty(runner.geometry, ['greedy']);
  let result = await runner.forward(batch, BigInt64Array.from(prompt, BigInt), prompt.length, 'last');
  batch = batch.advanced(result.kv, prompt.length);
  const run: GreedyRun = { tokens: [], stepMs: [] };
  for (;;) {
    const logits = lastLogits(result, 0);
    const token = argmax(logits.length > vocabLimit ? logits.subarray(0, vocabLimit) : logits);
    run.tokens.push(token);
    if (run.tokens.length === numTokens) return run;
    const startMs = performance.now();
    result = await runner.forward(batch, BigInt64Array.of(BigInt(token)), 1, 'last');
    run.stepMs.push(performance.now() - startMs);
    batch = batch.advanced(result.kv, 1);
  }
}

/** Mean number of tokens two continuations share before their first difference. */
export function meanTokensBeforeDivergence(
  a: readonly (readonly number[])[],
  b: readonly (readonly number[])[],
): number {
  if (a.length === 0) return 0;
  const lengths = a.map((tokens, i) => {
    const first = tokens.findIndex((token, j) => b[i]?.[j] !== token);
    return first < 0 ? tokens.length : first;
  });
  return lengths.reduce((sum, n) => sum + n, 0) / lengths.length;
}

/** Share of positions where two equally long token lists agree, over all pairs. */
export function agreementOf(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): number {
  let same = 0;
  let total = 0;
  a.forEach((tokens, i) =>
    tokens.forEach((token, j) => {
      total += 1;
      if (b[i]?.[j] === token) same += 1;
    }),
  );
  return total === 0 ? 1 : same / total;
}
