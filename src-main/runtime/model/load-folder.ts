import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigFieldError, eosIdsOf, shapeOf } from './config';
import type { ModelConfig, ModelShape } from './config';
import { readFolderJson, resolveInside } from './folder-files';
import {
  GenaiConfigSchema,
  genaiSamplingOf,
  genaiShapeOf,
  unsupportedGenaiReason,
} from './genai/genai-config';
import type { DefaultSampling, GenaiConfig } from './genai/genai-config';
import { buildFolderTokenizer } from '../tokenize/tokenizer-files';
import { isLaterShard } from './gguf/gguf-files';
import { ggufListingProblem } from './gguf/gguf-listing';
import { inspectVariant } from './inspect-variant';
import type { VariantGraph } from './inspect-variant';
import { ModelFolderError } from './model-folder-error';
import { shapeBeyondLimits } from './shape-limits';
import type { TextTokenizer } from '../tokenize/tokenizer';
import { defaultVariantOf, findVariantFiles, GENAI_VARIANT, VARIANT_FILES } from './variants';
import type { VariantFile, VariantName } from './variants';

/** The non-ONNX files of a Hugging Face model folder, relative to the folder (its tokenizer's: TOKENIZER_FILES). */
export const MODEL_FILES = {
  config: 'config.json',
  generationConfig: 'generation_config.json',
  genaiConfig: 'genai_config.json',
} as const;

/** One variant file of a folder: its checked graph, or the problem that keeps it from loading. */
export type FolderVariant =
  | { found: VariantFile; status: 'ok'; graph: VariantGraph }
  | { found: VariantFile; status: 'broken'; error: string };

/** A model folder whose config, tokenizer and chat template check out, with each variant file checked. */
export interface ModelFolder {
  folder: string;
  /**
   * What the folder is: a Hugging Face ONNX folder, an onnxruntime-genai one (genai_config.json),
   * or a GGUF file (its tokenizer and shape from the file's metadata, its graph converted from it).
   */
  format: 'hf-onnx' | 'genai' | 'gguf';
  config: ModelConfig;
  shape: ModelShape;
  tokenizer: TextTokenizer;
  /** Ids that end a turn: config eos ids, generation_config eos ids and the template's end token. */
  eosIds: number[];
  generationConfig: Record<string, unknown>;
  /** Every variant file found (onnx/ and the root), in default-preference order. */
  variants: FolderVariant[];
  /** The variant a bare `name` reference means (transformers.js_config.dtype, else the first present). */
  defaultVariant: VariantName;
  /** The model's own default sampling (genai_config.json `search`), or null. */
  defaultSampling: DefaultSampling | null;
}

/**
 * Reads and validates a model folder. A folder-wide problem (config, tokenizer, template, no ONNX
 * file) throws ModelFolderError naming the file; a problem with one ONNX file marks only that
 * variant broken. Reads stay inside the folder.
 */
export function loadModelFolder(folder: string): ModelFolder {
  const abs = path.resolve(folder);
  const genai = readFolderJson(abs, MODEL_FILES.genaiConfig, true);
  if (genai) return loadGenaiFolder(abs, genai);
  if (resolveInside(abs, MODEL_FILES.config, true) === null) {
    const reason = unknownFormatReason(abs);
    if (reason) throw new ModelFolderError(abs, reason.file, reason.problem);
  }
  const config = readFolderJson(abs, MODEL_FILES.config)! as ModelConfig;
  const shape = parseShape(abs, config);
  const generationConfig = readFolderJson(abs, MODEL_FILES.generationConfig, true) ?? {};
  const tokenizer = buildFolderTokenizer(abs);
  const eosIds = endIdsOf(abs, tokenizer, eosIdsOf(config, generationConfig));
  const { files, unrun } = findVariantFiles(abs);
  if (files.length === 0) throw new ModelFolderError(abs, 'onnx/', noModelFile(unrun));
  const variants = files.map((found) => inspect(abs, found, shape, tokenizer.vocabSize));
  return {
    folder: abs,
    format: 'hf-onnx',
    config,
    shape,
    tokenizer,
    eosIds,
    generationConfig,
    variants,
    defaultVariant: defaultVariantOf(
      config,
      files.map((f) => f.variant),
    )!,
    defaultSampling: null,
  };
}

/**
 * An onnxruntime-genai folder: genai_config.json gives the decoder's file and geometry (config.json
 * is read when present, for the family's fields), its one decoder is the `genai` variant.
 */
function loadGenaiFolder(abs: string, raw: Record<string, unknown>): ModelFolder {
  const parsed = GenaiConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ModelFolderError(
      abs,
      MODEL_FILES.genaiConfig,
      `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
  }
  const genai: GenaiConfig = parsed.data;
  const unsupported = unsupportedGenaiReason(genai);
  if (unsupported) throw new ModelFolderError(abs, MODEL_FILES.genaiConfig, unsupported);
  const config = (readFolderJson(abs, MODEL_FILES.config, true) ?? {
    model_type: genai.model.type,
  }) as ModelConfig;
  const shape = genaiShapeOf(genai);
  const beyond = shapeBeyondLimits([
    { name: 'model.decoder.num_hidden_layers', dimension: 'numLayers', value: shape.numLayers },
    { name: 'model.decoder.num_key_value_heads', dimension: 'numKvHeads', value: shape.numKvHeads },
    { name: 'model.decoder.head_size', dimension: 'headDim', value: shape.headDim },
    { name: 'model.decoder.hidden_size', dimension: 'hiddenSize', value: shape.hiddenSize },
    { name: 'model.vocab_size', dimension: 'vocabSize', value: shape.vocabSize },
    { name: 'model.context_length', dimension: 'maxPositions', value: shape.maxPositions },
  ]);
  if (beyond) throw new ModelFolderError(abs, MODEL_FILES.genaiConfig, `${beyond.field} ${beyond.problem}`);
  const generationConfig = readFolderJson(abs, MODEL_FILES.generationConfig, true) ?? {};
  const tokenizer = buildFolderTokenizer(abs);
  const eosIds = endIdsOf(abs, tokenizer, eosIdsOf(genai.model, generationConfig));
  const found = { variant: GENAI_VARIANT, file: genai.model.decoder.filename ?? 'model.onnx' } as const;
  return {
    folder: abs,
    format: 'genai',
    config,
    shape,
    tokenizer,
    eosIds,
    generationConfig,
    variants: [inspect(abs, found, shape, tokenizer.vocabSize)],
    defaultVariant: GENAI_VARIANT,
    defaultSampling: genaiSamplingOf(genai),
  };
}

/** End-of-turn ids: the given ones plus the tokenizer's eos token; at least one, or the folder is refused. */
function endIdsOf(folder: string, tokenizer: TextTokenizer, eosIds: number[]): number[] {
  const endOfTurn = tokenizer.eosToken ? tokenizer.idOf(tokenizer.eosToken) : undefined;
  if (endOfTurn !== undefined && !eosIds.includes(endOfTurn)) eosIds.push(endOfTurn);
  if (eosIds.length === 0)
    throw new ModelFolderError(
      folder,
      MODEL_FILES.config,
      'eos_token_id is missing (here, in generation_config.json and as the tokenizer’s eos_token)',
    );
  return eosIds;
}

function inspect(
  folder: string,
  found: VariantFile,
  shape: ModelShape,
  tokenizerVocab: number,
): FolderVariant {
  try {
    return { found, status: 'ok', graph: inspectVariant(folder, found, shape, tokenizerVocab) };
  } catch (error) {
    if (!(error instanceof ModelFolderError)) throw error;
    return { found, status: 'broken', error: `${error.file}: ${error.problem}` };
  }
}

function noModelFile(unrun: string[]): string {
  const looked = VARIANT_FILES.map(([, name]) => name).join(', ');
  const found = unrun.length > 0 ? `; found only ${unrun.join(', ')}` : '';
  return `no ONNX model file (looked in onnx/ and the folder for ${looked})${found}`;
}

function parseShape(folder: string, config: ModelConfig): ModelShape {
  try {
    return shapeOf(config);
  } catch (error) {
    if (error instanceof ConfigFieldError)
      throw new ModelFolderError(folder, MODEL_FILES.config, error.message);
    throw error;
  }
}

/**
 * What a folder without config.json or genai_config.json holds, named for the user: GGUF files,
 * PyTorch or safetensors weights, or nothing First Frame recognises. A wrong guess
 * ("config.json: missing" for a GGUF folder) sends the user looking for the wrong file.
 * The file at fault and the problem, or null when the folder holds nothing to name.
 */
function unknownFormatReason(folder: string): { file: string; problem: string } | null {
  let names: string[];
  try {
    names = readdirSync(folder).sort();
  } catch {
    return null; // unreadable: the config.json read that follows reports why
  }
  const gguf = names.find((n) => n.toLowerCase().endsWith('.gguf') && !isLaterShard(n));
  if (gguf) return { file: gguf, problem: ggufListingProblem(path.join(folder, gguf)) };
  const weights = names.find((n) => /\.(safetensors|bin|pt|pth)$/i.test(n));
  if (weights)
    return {
      file: weights,
      problem:
        'holds PyTorch/safetensors weights, with no ONNX model and no config.json: First Frame runs Hugging Face ONNX folders, onnxruntime-genai folders (genai_config.json) and GGUF files; export it with `optimum-cli export onnx` or the onnxruntime-genai model builder',
    };
  return null;
}
