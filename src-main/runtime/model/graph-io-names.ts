// A decoder graph's input and output names (Hugging Face's, which onnxruntime-genai's builder and
// the fused writer keep), declared once: the contract check, the fusion recognizer, the writers,
// the feeds and the bound run path all name a graph's tensors from here.

/** Which half of a layer's past or present K/V. */
export type KvKind = 'key' | 'value';

/** Every input and output name besides the per-layer K/V (those are pastName/presentName). */
export const GRAPH_IO = {
  inputIds: 'input_ids',
  attentionMask: 'attention_mask',
  positionIds: 'position_ids',
  /** Merged decoders' switch between the first forward and the with-past branch (bool). */
  useCacheBranch: 'use_cache_branch',
  /** GroupQueryAttention's per row past plus new tokens minus one (int32 [rows]). */
  seqlensK: 'seqlens_k',
  /** GroupQueryAttention's longest row, past plus new tokens (int32 scalar). */
  totalSequenceLength: 'total_sequence_length',
  /** Keep only the last N positions' logits (int64 scalar, 0 keeps all): transformers' older name. */
  numLogitsToKeep: 'num_logits_to_keep',
  /** The same input under transformers' newer name. */
  logitsToKeep: 'logits_to_keep',
  logits: 'logits',
} as const;

/** GroupQueryAttention's own lengths, which the fused form takes instead of an attention mask. */
export const LENGTH_INPUTS = [GRAPH_IO.seqlensK, GRAPH_IO.totalSequenceLength] as const;

/** The names a graph may take its logits-to-keep input by, the one First Frame adds first. */
export const LOGITS_TO_KEEP_INPUTS = [GRAPH_IO.numLogitsToKeep, GRAPH_IO.logitsToKeep] as const;

const PAST = 'past_key_values';
const PRESENT = 'present';

/** A layer's past K/V input name; layer `'%d'` gives genai_config.json's name template. */
export const pastName = (layer: number | '%d', kind: KvKind) => `${PAST}.${layer}.${kind}`;
/** A layer's present K/V output name; layer `'%d'` gives genai_config.json's name template. */
export const presentName = (layer: number | '%d', kind: KvKind) => `${PRESENT}.${layer}.${kind}`;

/** Every layer's K/V names by `nameOf` (pastName or presentName), key then value, layer by layer. */
export function kvNamesOf(numLayers: number, nameOf: (layer: number, kind: KvKind) => string): string[] {
  return Array.from({ length: numLayers }, (_, layer) => [
    nameOf(layer, 'key'),
    nameOf(layer, 'value'),
  ]).flat();
}

/** The layer and half a K/V name stands for. */
export interface KvName {
  layer: number;
  kind: KvKind;
}

const kvNamePattern = (prefix: string) => new RegExp(`^${prefix}\\.(\\d+)\\.(key|value)$`);
const PAST_PATTERN = kvNamePattern(PAST);
const PRESENT_PATTERN = kvNamePattern(PRESENT);

function kvNameOf(pattern: RegExp, name: string): KvName | null {
  const match = pattern.exec(name);
  return match ? { layer: Number(match[1]), kind: match[2] as KvKind } : null;
}

/** What a past input's name (`past_key_values.N.key|value`) stands for; null for any other name. */
export const pastOf = (name: string) => kvNameOf(PAST_PATTERN, name);
/** What a present output's name (`present.N.key|value`) stands for; null for any other name. */
export const presentOf = (name: string) => kvNameOf(PRESENT_PATTERN, name);

/** How many layers of past a graph takes: its `past_key_values.N.key` inputs. */
export function numPastLayersOf(inputNames: Iterable<string>): number {
  return [...inputNames].filter((name) => pastOf(name)?.kind === 'key').length;
}
