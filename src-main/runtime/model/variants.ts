import { readdirSync } from 'node:fs';
import path from 'node:path';
import { VARIANT_FILES, VARIANT_NAMES } from './variant-names';
import type { VariantName } from './variant-names';

export {
  GENAI_VARIANT,
  GGUF_VARIANT,
  VARIANT_FILES,
  VARIANT_NAMES,
  fileRefOf,
  idVariantOf,
  isRefTo,
  modelRefOf,
  parseModelRef,
} from './variant-names';
export type { VariantName } from './variant-names';

/** Folders searched for ONNX files, relative to the model folder: transformers.js's `onnx/` first, then the root (Optimum). */
export const ONNX_DIRS = ['onnx', ''] as const;

/** A variant's file, found in the folder. */
export interface VariantFile {
  variant: VariantName;
  /** Path relative to the model folder, e.g. `onnx/model_q4.onnx`. */
  file: string;
}

/** Other ONNX files Optimum writes that First Frame does not run, with why (said when nothing else is found). */
const UNRUN_FILES: Record<string, string> = {
  'decoder_model.onnx': 'a decoder without past K/V (export with --task text-generation-with-past)',
  'decoder_with_past_model.onnx': 'the second half of an unmerged export (use decoder_model_merged.onnx)',
};

/**
 * The variant files present, onnx/ before the root: a variant found in both is taken from onnx/.
 * `unrun` names ONNX files present that are not variants, for the "no model file" error.
 */
export function findVariantFiles(folder: string): { files: VariantFile[]; unrun: string[] } {
  const files: VariantFile[] = [];
  const unrun: string[] = [];
  for (const dir of ONNX_DIRS) {
    const names = new Set(listDir(path.join(folder, dir)));
    for (const [variant, name] of VARIANT_FILES)
      if (names.has(name) && !files.some((f) => f.variant === variant))
        files.push({ variant, file: dir ? `${dir}/${name}` : name });
    for (const name of names)
      if (name.endsWith('.onnx') && !VARIANT_FILES.some(([, known]) => known === name))
        unrun.push(`${dir ? `${dir}/` : ''}${name}${UNRUN_FILES[name] ? ` (${UNRUN_FILES[name]})` : ''}`);
  }
  files.sort((a, b) => VARIANT_NAMES.indexOf(a.variant) - VARIANT_NAMES.indexOf(b.variant));
  return { files, unrun };
}

/** The default variant: the one `transformers.js_config.dtype` names when present, else the first in preference order. */
export function defaultVariantOf(
  config: Record<string, unknown>,
  present: readonly VariantName[],
): VariantName | null {
  const named = namedDtype(config['transformers.js_config']);
  if (named && (present as readonly string[]).includes(named)) return named as VariantName;
  return present[0] ?? null;
}

/** `dtype` of transformers.js_config: a string, or a per-module map whose decoder entry counts. */
function namedDtype(jsConfig: unknown): string | null {
  if (!jsConfig || typeof jsConfig !== 'object') return null;
  const dtype = (jsConfig as { dtype?: unknown }).dtype;
  if (typeof dtype === 'string') return dtype;
  if (dtype && typeof dtype === 'object') {
    const perModule = dtype as Record<string, unknown>;
    const value = perModule['model'] ?? perModule['decoder_model_merged'];
    return typeof value === 'string' ? value : null;
  }
  return null;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // no such subfolder (a root-only or onnx/-only layout): nothing to list there
  }
}
