// RoPE's parameters in one place: the base, how its frequencies are scaled (linear, llama3,
// per-frequency factors with LongRoPE's attention factor), which LongRoPE factor set a context
// takes, and the frequencies they give. The GGUF reader states them (gguf/gguf-architecture.ts),
// load-time fusion reads them back from a graph (fuse-at-load/rope-params.ts), and the fused
// writer turns them into cos/sin caches (fused-graph/write-fused-decoder.ts).

/** How RoPE frequencies are rescaled; null (no scaling) is plain `1 / theta^(2i/D)`. */
export type RopeScaling =
  /** Hugging Face `rope_type: linear`: every inverse frequency divided by `factor`. */
  | { type: 'linear'; factor: number }
  /** Hugging Face `rope_type: llama3` (Llama 3.1+): long wavelengths slowed, short kept, smooth between. */
  | {
      type: 'llama3';
      factor: number;
      lowFreqFactor: number;
      highFreqFactor: number;
      originalContextLength: number;
    }
  /**
   * Per-frequency divisors, `headDim / 2` of them (GGUF's `rope_freqs.weight`, or LongRoPE's long
   * or short factors), and what cos and sin are multiplied by (LongRoPE's attention factor; 1 when absent).
   */
  | { type: 'frequency-factors'; factors: Float32Array; attentionFactor?: number };

/** RoPE as a decoder states it: a base, and how its frequencies are scaled (null: not at all). */
export interface RopeParams {
  ropeTheta: number;
  ropeScaling: RopeScaling | null;
}

/**
 * Which of LongRoPE's two factor sets (Phi-3 128k, Phi-3.5, Phi-4-mini) a sequence of up to
 * `contextLength` positions takes, as llama_model::get_rope_factors picks: the long factors when
 * it runs past the original training context (`originalContextLength`, else the context itself).
 */
export function longRopeSetOf(contextLength: number, originalContextLength: number | null): 'long' | 'short' {
  return originalContextLength !== null && contextLength > originalContextLength ? 'long' : 'short';
}

/** HF inverse frequencies 1/theta^(2i/D), i < D/2, rounded to float32 like torch's float32 arange path. */
export function ropeInverseFrequencies(headDim: number, ropeTheta: number): Float32Array {
  const inverse = new Float32Array(headDim / 2);
  for (let i = 0; i < headDim / 2; i++) {
    const exponent = Math.fround(Math.fround(2 * i) / headDim);
    inverse[i] = Math.fround(1 / Math.fround(ropeTheta ** exponent));
  }
  return inverse;
}

/** Hugging Face's `_compute_llama3_parameters`: long wavelengths slowed by `factor`, a smooth band between. */
function llama3Scaled(
  inverse: Float32Array,
  scaling: Extract<RopeScaling, { type: 'llama3' }>,
): Float32Array {
  const { factor, lowFreqFactor, highFreqFactor, originalContextLength } = scaling;
  const lowFreqWavelen = originalContextLength / lowFreqFactor;
  const highFreqWavelen = originalContextLength / highFreqFactor;
  return inverse.map((frequency) => {
    const wavelen = (2 * Math.PI) / frequency;
    if (wavelen < highFreqWavelen) return frequency;
    if (wavelen > lowFreqWavelen) return frequency / factor;
    const smooth = (originalContextLength / wavelen - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
    return (1 - smooth) * (frequency / factor) + smooth * frequency;
  });
}

/** What the rotary cos and sin are multiplied by: LongRoPE's attention factor, else 1. */
export function rotaryAmplitudeOf({ ropeScaling }: Pick<RopeParams, 'ropeScaling'>): number {
  return ropeScaling?.type === 'frequency-factors' ? (ropeScaling.attentionFactor ?? 1) : 1;
}

/** The inverse frequencies with the RoPE scaling applied (float32). */
export function scaledInverseFrequencies(dims: RopeParams & { headDim: number }): Float32Array {
  const inverse = ropeInverseFrequencies(dims.headDim, dims.ropeTheta);
  const scaling = dims.ropeScaling;
  if (!scaling) return inverse;
  if (scaling.type === 'linear') return inverse.map((frequency) => frequency / scaling.factor);
  if (scaling.type === 'llama3') return llama3Scaled(inverse, scaling);
  return inverse.map((frequency, i) => frequency / scaling.factors[i]!);
}

/**
 * The parameters that give these inverse frequencies (all positive): the base whose plain
 * frequencies equal them (to float32 rounding), else that base with per-frequency divisors (any
 * scaling computed into them, llama3's and linear included).
 */
export function ropeParamsOfFrequencies(inverse: Float32Array, headDim: number): RopeParams {
  // inverse[i] = theta^(−2i / headDim): the lowest frequency pins theta best, the second one is
  // the one scalings leave alone; float32 rounding leaves either a little off a round base.
  const baseFrom = (i: number) => inverse[i]! ** (-headDim / (2 * i));
  const last = inverse.length - 1;
  const estimates = last >= 1 ? [baseFrom(1), baseFrom(last)] : [10_000];
  const candidates = estimates.flatMap((e) => [Number(e.toPrecision(4)), Math.round(e), e]);
  for (const ropeTheta of candidates) {
    const plain = ropeInverseFrequencies(headDim, ropeTheta);
    if (plain.every((f, i) => f === inverse[i])) return { ropeTheta, ropeScaling: null };
  }
  const ropeTheta = candidates[0]!;
  const plain = ropeInverseFrequencies(headDim, ropeTheta);
  const factors = Float32Array.from(plain, (f, i) => f / inverse[i]!);
  return { ropeTheta, ropeScaling: { type: 'frequency-factors', factors } };
}
