/**
 * Token-length distributions for prompts and outputs: `fixed:N`, `uniform:A-B` (inclusive)
 * or `run:<runId>` (drawn from the lengths a stored run really had).
 */
export type LengthSpec =
  | { kind: 'fixed'; numTokens: number }
  | { kind: 'uniform'; minTokens: number; maxTokens: number }
  | { kind: 'run'; runId: string };

/** A spec with its sample pool resolved: draws a length from a uniform number in [0, 1). */
export type LengthSampler = (uniform: number) => number;

/** Parses `fixed:N`, `uniform:A-B` or `run:<runId>`; throws a message that says what to write. */
export function parseLengthSpec(text: string, name: string): LengthSpec {
  const [kind, rest = ''] = text.split(/:(.*)/s, 2);
  if (kind === 'fixed' && /^\d+$/.test(rest) && Number(rest) > 0) return { kind, numTokens: Number(rest) };
  const range = /^(\d+)-(\d+)$/.exec(rest);
  if (kind === 'uniform' && range && Number(range[1]) > 0 && Number(range[1]) <= Number(range[2]))
    return { kind, minTokens: Number(range[1]), maxTokens: Number(range[2]) };
  if (kind === 'run' && rest.length > 0) return { kind, runId: rest };
  throw new Error(`--${name} "${text}": write fixed:N, uniform:A-B (1 ≤ A ≤ B) or run:<runId>`);
}

/** A sampler for `spec`; `pool` holds a stored run's lengths for `run:` specs. */
export function lengthSampler(spec: LengthSpec, pool: readonly number[] = []): LengthSampler {
  if (spec.kind === 'fixed') return () => spec.numTokens;
  if (spec.kind === 'uniform')
    return (u) => spec.minTokens + Math.floor(u * (spec.maxTokens - spec.minTokens + 1));
  const usable = pool.filter((n) => n > 0);
  if (usable.length === 0) throw new Error(`run ${spec.runId} has no stored requests with lengths to sample`);
  return (u) => usable[Math.floor(u * usable.length)]!;
}

/** A prompt length and an output length drawn together. */
export interface LengthPair {
  numPromptTokens: number;
  numOutputTokens: number;
}

/**
 * Draws one request's prompt and output lengths from two uniform numbers in [0, 1). Every kind
 * uses both numbers, so a plan's other draws do not shift with the kind.
 */
export type PairSampler = (uPrompt: number, uOutput: number) => LengthPair;

/** Prompt and output lengths drawn independently (fixed or uniform specs). */
export function independentPairs(prompt: LengthSampler, output: LengthSampler): PairSampler {
  return (uPrompt, uOutput) => ({ numPromptTokens: prompt(uPrompt), numOutputTokens: output(uOutput) });
}

/**
 * Lengths drawn as whole requests from `pool` (a stored run or a trace): a long prompt keeps
 * its own output length, so the replay has the joint distribution of the original (seed 003),
 * not independent draws that mix one request's prompt with another's answer.
 */
export function jointPairs(pool: readonly LengthPair[], source: string): PairSampler {
  const usable = pool.filter((p) => p.numPromptTokens > 0 && p.numOutputTokens > 0);
  if (usable.length === 0) throw new Error(`${source} has no requests with both lengths to sample`);
  return (uPrompt) => usable[Math.floor(uPrompt * usable.length)]!;
}

/** The spec as written on the command line (for the stored run's config). */
export function formatLengthSpec(spec: LengthSpec): string {
  if (spec.kind === 'fixed') return `fixed:${spec.numTokens}`;
  return spec.kind === 'uniform' ? `uniform:${spec.minTokens}-${spec.maxTokens}` : `run:${spec.runId}`;
}
