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
 * 1: no rewrite; 2: logits-to-keep; 3: and present deltas; 4: none on GroupQueryAttention graphs;
 * 5: gathered deltas on GroupQueryAttention graphs.
 */
export const GRAPH_REWRITE_FORM = 5;

/**
 * The rewritten bytes (null when neither rewrite applied), the logits-to-keep form alone to try
 * when ONNX Runtime refuses them (null when that is not a different graph), and why each
 * rewrite that was skipped was.
 */
export interface SlotRewrite {
  bytes: Uint8Array | null;
  keepOnlyBytes: Uint8Array | null;
  skipped: string[];
}

/** Applies both rewrites to `bytes`; `hasKeepInput`: the graph already takes a logits-to-keep input. */
export function rewriteForSlot(bytes: Uint8Array, hasKeepInput: boolean): SlotRewrite {
  const skipped: string[] = [];
  let keepOnly: Uint8Array | null = null;
  if (!hasKeepInput) {
    const kept = keepLastLogits(bytes);
    if ('bytes' in kept) keepOnly = kept.bytes;
    else skipped.push(`logits-to-keep: ${kept.skipped}`);
  }
  const deltas = addPresentDeltas(keepOnly ?? bytes);
  if ('bytes' in deltas) return { bytes: deltas.bytes, keepOnlyBytes: keepOnly, skipped };
  skipped.push(`present deltas: ${deltas.skipped}`);
  return { bytes: keepOnly, keepOnlyBytes: null, skipped };
}
