import type { DecoderDims, RopeScaling } from './weight-set';

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
export function rotaryAmplitudeOf(dims: DecoderDims): number {
  const scaling = dims.ropeScaling;
  return scaling?.type === 'frequency-factors' ? (scaling.attentionFactor ?? 1) : 1;
}

/** The inverse frequencies with the dims' RoPE scaling applied (float32). */
export function scaledInverseFrequencies(dims: DecoderDims): Float32Array {
  const inverse = ropeInverseFrequencies(dims.headDim, dims.ropeTheta);
  const scaling = dims.ropeScaling;
  if (!scaling) return inverse;
  if (scaling.type === 'linear') return inverse.map((frequency) => frequency / scaling.factor);
  if (scaling.type === 'llama3') return llama3Scaled(inverse, scaling);
  return inverse.map((frequency, i) => frequency / scaling.factors[i]!);
}
