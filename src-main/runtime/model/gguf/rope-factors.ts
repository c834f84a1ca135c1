// Per-frequency RoPE factors as llama.cpp picks them for a file: Llama 3's `rope_freqs.weight`,
// or LongRoPE's two sets (Phi-3 128k, Phi-3.5, Phi-4-mini): `rope_factors_long.weight` when the
// context a sequence runs is longer than the original training context
// (`{arch}.rope.scaling.original_context_length`, else the context length), else
// `rope_factors_short.weight` (llama_model::get_rope_factors). LongRoPE also multiplies cos and
// sin by an attention factor the converter computed (`{arch}.rope.scaling.attn_factor`,
// sqrt(1 + ln(scale) / ln(original context))), which llama.cpp applies as ggml_rope_ext's mscale.

import type { GgufMetaValue } from './gguf-header';
import type { GgufSetTensor } from './gguf-files';

/**
 * The tensor of per-frequency divisors llama.cpp applies to a sequence of up to `contextLength`
 * positions (the length First Frame runs a slot at), or null when the file has none.
 */
export function ropeFactorsTensorOf(
  arch: string,
  meta: ReadonlyMap<string, GgufMetaValue>,
  tensors: ReadonlyMap<string, GgufSetTensor>,
  contextLength: number,
): string | null {
  if (tensors.has('rope_freqs.weight')) return 'rope_freqs.weight';
  const original = meta.get(`${arch}.rope.scaling.original_context_length`) ?? contextLength;
  const tensor =
    typeof original === 'number' && contextLength > original
      ? 'rope_factors_long.weight'
      : 'rope_factors_short.weight';
  return tensors.has(tensor) ? tensor : null;
}
