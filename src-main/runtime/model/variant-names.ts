// No Node imports: the renderer's contract schemas import these names too.

/**
 * ONNX file names a model folder may hold and the variant each one is (transformers.js's names),
 * in default-preference order: with no `transformers.js_config.dtype` naming a present file, the
 * first present one is the folder's default.
 */
export const VARIANT_FILES = [
  ['fp32', 'model.onnx'],
  ['fp16', 'model_fp16.onnx'],
  ['q8', 'model_q8.onnx'],
  ['q4', 'model_q4.onnx'],
  ['q4f16', 'model_q4f16.onnx'],
  ['int8', 'model_int8.onnx'],
  ['uint8', 'model_uint8.onnx'],
  ['quantized', 'model_quantized.onnx'],
  ['bnb4', 'model_bnb4.onnx'],
  ['merged', 'decoder_model_merged.onnx'],
] as const;

/** The variant of an onnxruntime-genai folder: its one decoder, whatever genai_config.json names it. */
export const GENAI_VARIANT = 'genai';

/** The variant of a GGUF model: its one decoder, converted from the file. */
export const GGUF_VARIANT = 'gguf';

/** A variant name: what follows the colon in a `name:variant` model reference. */
export type VariantName = (typeof VARIANT_FILES)[number][0] | typeof GENAI_VARIANT | typeof GGUF_VARIANT;

/** Every variant name, in default-preference order. */
export const VARIANT_NAMES: readonly VariantName[] = [
  ...VARIANT_FILES.map(([variant]) => variant),
  GENAI_VARIANT,
  GGUF_VARIANT,
];

/** Splits a model reference into folder name and variant: `name` or `name:variant` (a known variant only). */
export function parseModelRef(ref: string): { name: string; variant: VariantName | null } {
  const colon = ref.lastIndexOf(':');
  const tail = colon >= 0 ? ref.slice(colon + 1) : '';
  if (colon > 0 && (VARIANT_NAMES as readonly string[]).includes(tail))
    return { name: ref.slice(0, colon), variant: tail as VariantName };
  return { name: ref, variant: null };
}

/** The canonical reference of a variant. */
export function modelRefOf(name: string, variant: VariantName): string {
  return `${name}:${variant}`;
}

/** Variant names that claim a float precision by file convention alone (`model.onnx` is "fp32"). */
const FLOAT_VARIANTS: ReadonlySet<string> = new Set(['fp32', 'fp16']);

/**
 * What every screen calls a variant: by the weights it holds. transformers.js's file names call
 * `model.onnx` "fp32" whatever it stores, so a float-named variant whose graph holds other
 * weights is named by their storage as read from its initializers (`weightDtype`: "fp16",
 * "int4 + fp32"); quantized names (q4, q8) already say what they hold. The variant in a model
 * reference (`name:fp32`, what the API and kept settings use) stays the file's.
 */
export function variantLabelOf(variant: string | null, weightDtype: string | null): string | null {
  if (variant === null || weightDtype === null || weightDtype === 'none') return variant;
  return FLOAT_VARIANTS.has(variant) && weightDtype !== variant ? weightDtype : variant;
}
