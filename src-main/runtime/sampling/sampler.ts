import type { Random } from './rng';

/** How the next token is picked. `temperature` 0 is greedy; `topK` 0 means the whole vocabulary. */
export interface SamplingParams {
  temperature: number;
  topK: number;
  topP: number;
}

/** How a sequence samples, as sent to its slot's worker: settings, vocabulary limit and RNG state. */
export interface SamplerSpec extends SamplingParams {
  /** Ids the tokenizer can decode; logits beyond (a padded vocabulary) are never picked. */
  vocabLimit: number;
  /** The 32-bit RNG state before the next draw. */
  rngState: number;
}

/** Ollama-like defaults for sampled chat; greedy when temperature is 0. */
export const DEFAULT_SAMPLING: SamplingParams = { temperature: 0, topK: 40, topP: 0.95 };

/** The index of the largest logit (ties: the lowest index), i.e. greedy decoding. */
export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i]! > logits[best]!) best = i;
  return best;
}

/** Picks a token id from last-position logits. Never returns a masked (−∞ or NaN) entry. */
export function sampleToken(logits: Float32Array, params: SamplingParams, random: Random): number {
  if (params.temperature <= 0) return argmax(logits);
  const candidates = topCandidates(logits, params.topK > 0 ? params.topK : logits.length);
  const probs = softmaxOver(logits, candidates, params.temperature);
  const numKept = nucleusSize(probs, params.topP);
  let mass = 0;
  for (let i = 0; i < numKept; i++) mass += probs[i]!;
  let pick = random() * mass;
  for (let i = 0; i < numKept; i++) {
    pick -= probs[i]!;
    if (pick <= 0) return candidates[i]!;
  }
  return candidates[numKept - 1]!;
}

/** Indices of the `k` largest finite logits, largest first. */
function topCandidates(logits: Float32Array, k: number): number[] {
  if (k >= logits.length) {
    const all = Array.from(logits.keys()).filter((i) => Number.isFinite(logits[i]!));
    return all.sort((a, b) => logits[b]! - logits[a]! || a - b);
  }
  const top: number[] = [];
  for (let i = 0; i < logits.length; i++) {
    const value = logits[i]!;
    if (!Number.isFinite(value)) continue;
    if (top.length === k && value <= logits[top[k - 1]!]!) continue;
    let at = top.length === k ? k - 1 : top.length;
    while (at > 0 && logits[top[at - 1]!]! < value) at--;
    top.splice(at, 0, i);
    if (top.length > k) top.pop();
  }
  return top;
}

function softmaxOver(logits: Float32Array, candidates: readonly number[], temperature: number): Float64Array {
  const probs = new Float64Array(candidates.length);
  const maxLogit = logits[candidates[0]!]!;
  let total = 0;
  candidates.forEach((index, i) => {
    probs[i] = Math.exp((logits[index]! - maxLogit) / temperature);
    total += probs[i]!;
  });
  for (let i = 0; i < probs.length; i++) probs[i] = probs[i]! / total;
  return probs;
}

/** How many leading (sorted) candidates reach cumulative probability `topP` (at least one). */
function nucleusSize(sortedProbs: Float64Array, topP: number): number {
  if (topP >= 1) return sortedProbs.length;
  let mass = 0;
  for (let i = 0; i < sortedProbs.length; i++) {
    mass += sortedProbs[i]!;
    if (mass >= topP) return i + 1;
  }
  return sortedProbs.length;
}
