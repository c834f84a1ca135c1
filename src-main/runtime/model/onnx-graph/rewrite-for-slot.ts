/**
 * The load-time rewrites a slot applies to a decoder graph before building its session: a
 * logits-to-keep input (keep-last-logits.ts) and outputs holding only the new tokens' K/V
 * (present-deltas.ts). Each is skipped on its own when it cannot apply; the caller builds the
 * original bytes when ONNX Runtime refuses the result.
 */
import { keepLastLogits } from './keep-last-logits';
import { addPresentDeltas } from './present-deltas';

/**
 * The graph form these rewrites write; part of the graph cache's key, so a changed rewrite
 * never reads graphs an earlier one saved. Raise it with any change to what either emits.
 * 1: no rewrite; 2: logits-to-keep; 3: and present deltas.
 */
export const GRAPH_REWRITE_FORM = 3;

/** The rewritten bytes (null when neither rewrite applied) and why each one that was skipped was. */
export interface SlotRewrite {
  bytes: Uint8Array | null;
  skipped: string[];
}

/** Applies both rewrites to `bytes`; `hasKeepInput`: the graph already takes a logits-to-keep input. */
export function rewriteForSlot(bytes: Uint8Array, hasKeepInput: boolean): SlotRewrite {
  const skipped: string[] = [];
  let current: Uint8Array | null = null;
  if (!hasKeepInput) {
    const kept = keepLastLogits(bytes);
    if ('bytes' in kept) current = kept.bytes;
    else skipped.push(`logits-to-keep: ${kept.skipped}`);
  }
  const deltas = addPresentDeltas(current ?? bytes);
  if ('bytes' in deltas) current = deltas.bytes;
  else skipped.push(`present deltas: ${deltas.skipped}`);
  return { bytes: current, skipped };
}
