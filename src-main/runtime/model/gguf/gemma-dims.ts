// A Gemma 2 / Gemma 3 GGUF's settings beyond llama's, read as llama.cpp's gemma2 and gemma3
// loaders read them (llama-model.cpp / src/models/gemma*.cpp), so a converted file computes what
// llama.cpp computes from the same file. Norm weights need nothing here: llama.cpp's converter
// already added Gemma's +1 to every `*norm.weight`, so they multiply as stored.

import type { GemmaDims, LayerAttention } from '../fused-graph/gemma';
import type { GgufMetaValue } from './gguf-header';

/** What each Gemma architecture defaults to where its file is silent. */
const FAMILIES: Record<
  string,
  {
    /** Every `period`-th layer (the last of each group) is global; the rest slide. */
    swaPeriod: number;
    /** llama.cpp's window when the file names none (0: no sliding layers). */
    defaultWindow: number;
    attentionSoftcap: number | null;
    finalSoftcap: number | null;
    /** Sliding layers' RoPE base when `rope.freq_base_swa` is absent (null: the global base and scaling). */
    slidingRopeTheta: number | null;
    /** The layer count of the 27B size, whose query is scaled by 1/√(hidden/heads) instead of 1/√headDim. */
    largeNumLayers: number;
  }
> = {
  gemma2: {
    swaPeriod: 2,
    defaultWindow: 4096,
    attentionSoftcap: 50,
    finalSoftcap: 30,
    slidingRopeTheta: null,
    largeNumLayers: 46,
  },
  gemma3: {
    swaPeriod: 6,
    defaultWindow: 0,
    attentionSoftcap: null,
    finalSoftcap: null,
    slidingRopeTheta: 10_000,
    largeNumLayers: 62,
  },
};

/** The dimensions GemmaDims is derived from. */
interface BaseDims {
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  headDim: number;
  hasRopeScaling: boolean;
}

/**
 * The Gemma settings of `arch` from its `{arch}.*` metadata, or null for a non-Gemma architecture.
 * Throws (via `refuse`) for a value llama.cpp would read differently from what is written here.
 */
export function gemmaDimsOf(
  arch: string,
  meta: ReadonlyMap<string, GgufMetaValue>,
  base: BaseDims,
  refuse: (problem: string) => never,
): GemmaDims | null {
  const family = FAMILIES[arch];
  if (!family) return null;
  const number = (key: string): number | null => {
    const value = meta.get(`${arch}.${key}`);
    if (value === undefined) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) refuse(`${arch}.${key} is not a number`);
    return value;
  };
  const window = number('attention.sliding_window') ?? family.defaultWindow;
  if (!Number.isInteger(window) || window < 0) refuse(`${arch}.attention.sliding_window is ${window}`);
  const isSliding = slidingLayersOf(arch, meta, base.numLayers, family.swaPeriod, refuse);
  const layerAttention = isSliding.map((sliding): LayerAttention =>
    window > 0 && sliding ? 'sliding' : 'global',
  );
  const slidingRopeTheta = number('rope.freq_base_swa') ?? family.slidingRopeTheta;
  if (arch === 'gemma2' && slidingRopeTheta !== null && base.hasRopeScaling)
    refuse(`${arch}.rope.freq_base_swa with RoPE scaling is not supported`);
  const isLarge = base.numLayers === family.largeNumLayers;
  return {
    attentionScale: 1 / Math.sqrt(isLarge ? base.hiddenSize / base.numHeads : base.headDim),
    attentionSoftcap: positiveOrNull(number('attn_logit_softcapping') ?? family.attentionSoftcap),
    finalSoftcap: positiveOrNull(number('final_logit_softcapping') ?? family.finalSoftcap),
    slidingWindow: Math.max(window, 1),
    layerAttention,
    slidingRopeTheta: layerAttention.includes('sliding') ? slidingRopeTheta : null,
  };
}

/**
 * Which layers slide: `attention.sliding_window_pattern` as a period (every period-th layer, the
 * last of its group, is global: llama.cpp's set_swa_pattern), as one boolean per layer (true
 * slides), or the family's period when absent.
 */
function slidingLayersOf(
  arch: string,
  meta: ReadonlyMap<string, GgufMetaValue>,
  numLayers: number,
  defaultPeriod: number,
  refuse: (problem: string) => never,
): boolean[] {
  const key = `${arch}.attention.sliding_window_pattern`;
  const pattern = meta.get(key) ?? defaultPeriod;
  if (Array.isArray(pattern)) {
    if (pattern.length !== numLayers || pattern.some((value) => typeof value !== 'boolean'))
      refuse(`${key} is not one boolean per layer`);
    return pattern as boolean[];
  }
  if (typeof pattern !== 'number' || !Number.isInteger(pattern) || pattern < 1)
    refuse(`${key} is ${String(pattern)}`);
  return Array.from({ length: numLayers }, (_, layer) => layer % pattern < pattern - 1);
}

/** A cap of 0 (or less) is no cap, as llama.cpp's `if (cap)` reads it. */
const positiveOrNull = (value: number | null): number | null => (value !== null && value > 0 ? value : null);
