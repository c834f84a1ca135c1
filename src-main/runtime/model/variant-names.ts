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
 * "int4 + fp32"); quantized names (q4, q8) already say what they hold. A model id names the
 * variant the same way where it can (idVariantOf).
 */
export function variantLabelOf(variant: string | null, weightDtype: string | null): string | null {
  if (variant === null || weightDtype === null || weightDtype === 'none') return variant;
  return FLOAT_VARIANTS.has(variant) && weightDtype !== variant ? weightDtype : variant;
}

/**
 * The variant a model id names: what its weights are (variantLabelOf) when that is a variant
 * name no file of the folder (`fileVariants`) already takes, else the file's own. So the
 * bundled `model.onnx` holding fp16 is `name:fp16`, unless a `model_fp16.onnx` sits beside it;
 * "int4 + fp32" is no variant name, so such a file keeps its name's variant.
 */
export function idVariantOf(
  variant: VariantName,
  weightDtype: string | null,
  fileVariants: readonly VariantName[],
): VariantName {
  const label = variantLabelOf(variant, weightDtype);
  const isFree =
    (VARIANT_NAMES as readonly string[]).includes(label!) &&
    !(fileVariants as readonly string[]).includes(label!);
  return label !== variant && isFree ? (label as VariantName) : variant;
}

/** What a reference is matched against: a listed variant, or a whole model (variant null). */
export interface RefTarget {
  modelId: string;
  name: string;
  /** The file's variant (`fp32` for `model.onnx`), whatever the id names. */
  variant: string | null;
  isDefaultVariant: boolean;
}

/**
 * The id a variant had before ids named its weights: `name:` and the file's variant
 * (`ff-austen-mini:fp32`). Kept settings, stored runs, scripts and API clients may still
 * send it, so it stays an alias; idVariantOf keeps it from being any other variant's id.
 */
export function fileRefOf(target: RefTarget): string | null {
  return target.variant === null ? null : modelRefOf(target.name, target.variant as VariantName);
}

/** Whether `ref` names `target`: its id, its file's old id (fileRefOf), or its bare name when it is the default. */
export function isRefTo(target: RefTarget, ref: string): boolean {
  return (
    target.modelId === ref || fileRefOf(target) === ref || (target.name === ref && target.isDefaultVariant)
  );
}
