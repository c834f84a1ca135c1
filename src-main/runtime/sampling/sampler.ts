import type { Random } from './rng';
import type { PenaltyHistory } from './token-history';
import { TopCandidates } from './top-candidates';

/**
 * How the next token is picked. `temperature` 0 is greedy; `topK` 0 means the whole vocabulary;
 * `minP` 0 keeps every token. The penalties (penalties.ts) change the logits before any of them.
 */
export interface SamplingParams {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  repeatPenalty: number;
  presencePenalty: number;
  frequencyPenalty: number;
}

/** How a sequence samples, as sent to its slot's worker: settings, vocabulary limit and RNG state. */
export interface SamplerSpec extends SamplingParams {
  /** Ids the tokenizer can decode; logits beyond (a padded vocabulary) are never picked. */
  vocabLimit: number;
  /** The 32-bit RNG state before the next draw. */
  rngState: number;
}

/** A sampler as its worker starts it (a sequence's first prefill chunk): the spec and its history. */
export interface SamplerStart extends SamplerSpec {
  /** The tokens the penalties start from; empty when the penalties are neutral. */
  history: PenaltyHistory;
}

/** Ollama-like defaults for sampled chat; greedy when temperature is 0. */
export const DEFAULT_SAMPLING: SamplingParams = {
  temperature: 0,
  topK: 40,
  topP: 0.95,
  minP: 0,
  repeatPenalty: 1,
  presencePenalty: 0,
  frequencyPenalty: 0,
};

/** The index of the largest logit (ties: the lowest index), i.e. greedy decoding. */
export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i]! > logits[best]!) best = i;
  return best;
}

/**
 * Picks a token id from last-position logits. Never returns a masked (−∞ or NaN) entry unless
 * every entry is masked (then greedy's pick). Costs O(vocab): the top-k candidates are selected,
 * not sorted, and taken in order only until the nucleus closes and the draw lands. Min-p masks
 * first, then top-k and top-p choose among what is left.
 */
export function sampleToken(
  logits: Float32Array,
  params: Pick<SamplingParams, 'temperature' | 'topK' | 'topP'> & Partial<Pick<SamplingParams, 'minP'>>,
  random: Random,
): number {
  if (params.temperature <= 0) return argmax(logits);
  if (params.minP) logits = maskBelowMinP(logits, params.minP);
  const candidates = TopCandidates.of(logits, params.topK > 0 ? params.topK : logits.length);
  if (candidates.numLeft === 0) return argmax(logits);
  const maxLogit = logits[candidates.peek()]!;
  const weightOf = (id: number) => Math.exp((logits[id]! - maxLogit) / params.temperature);
  let total = 0;
  for (const id of candidates.ids) total += weightOf(id);
  const taken: number[] = [];
  const probs: number[] = [];
  const take = () => {
    const id = candidates.take();
    taken.push(id);
    probs.push(weightOf(id) / total);
    return probs[probs.length - 1]!;
  };
  const isWhole = params.topP >= 1;
  let mass = isWhole ? 1 : 0;
  while (!isWhole && candidates.numLeft > 0 && mass < params.topP) mass += take();
  let pick = random() * mass;
  for (let i = 0; i < taken.length || (isWhole && candidates.numLeft > 0); i++) {
    if (i === taken.length) take();
    pick -= probs[i]!;
    if (pick <= 0) return taken[i]!;
  }
  return taken[taken.length - 1]!;
}

/**
 * A copy of `logits` with every token less likely than `minP` × the likeliest's probability
 * masked (−∞). Measured on the model's own probabilities, before temperature, as llama.cpp does.
 */
export function maskBelowMinP(logits: Float32Array, minP: number): Float32Array {
  const best = logits[argmax(logits)]!;
  if (!Number.isFinite(best)) return logits;
  const threshold = best + Math.log(minP);
  const masked = Float32Array.from(logits);
  for (let i = 0; i < masked.length; i++) if (!(masked[i]! >= threshold)) masked[i] = -Infinity;
  return masked;
}
