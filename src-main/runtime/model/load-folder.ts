import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ModelConfigSchema, eosIdsOf, shapeOf } from './config';
import type { ModelConfig, ModelShape } from './config';
import { ModelFolderError } from './model-folder-error';
import { TextTokenizer } from './tokenizer';

/** The files of a Hugging Face ONNX model folder, relative to the folder. */
export const MODEL_FILES = {
  config: 'config.json',
  generationConfig: 'generation_config.json',
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
  onnx: path.join('onnx', 'model.onnx'),
} as const;

/** A model folder whose config and tokenizer parsed; the ONNX graph is checked when a session is built. */
export interface ModelFolder {
  folder: string;
  onnxPath: string;
  onnxBytes: number;
  config: ModelConfig;
  shape: ModelShape;
  tokenizer: TextTokenizer;
  /** Ids that end a turn: config eos ids, generation_config eos ids and the template's end token. */
  eosIds: number[];
  generationConfig: Record<string, unknown>;
}

/** Reads and validates a model folder; a missing or malformed file throws `ModelFolderError` naming it. */
export async function loadModelFolder(folder: string): Promise<ModelFolder> {
  const abs = path.resolve(folder);
  const config = parseConfig(abs, await readJson(abs, MODEL_FILES.config));
  const generationConfig = (await readJson(abs, MODEL_FILES.generationConfig, true)) ?? {};
  const tokenizerJson = await readJson(abs, MODEL_FILES.tokenizer);
  const tokenizerConfig = (await readJson(abs, MODEL_FILES.tokenizerConfig, true)) ?? {};
  const tokenizer = buildTokenizer(abs, tokenizerJson, tokenizerConfig);
  const onnxPath = path.join(abs, MODEL_FILES.onnx);
  const onnxStat = await stat(onnxPath).catch(() => null);
  if (!onnxStat?.isFile()) throw new ModelFolderError(abs, MODEL_FILES.onnx, 'missing');
  if (onnxStat.size < 64)
    throw new ModelFolderError(abs, MODEL_FILES.onnx, `only ${onnxStat.size} bytes: truncated`);
  const endOfTurn = tokenizer.eosToken ? tokenizer.idOf(tokenizer.eosToken) : undefined;
  const eosIds = eosIdsOf(config as { eos_token_id?: number | number[] | null }, generationConfig as never);
  if (endOfTurn !== undefined && !eosIds.includes(endOfTurn)) eosIds.push(endOfTurn);
  return {
    folder: abs,
    onnxPath,
    onnxBytes: onnxStat.size,
    config,
    shape: shapeOf(config),
    tokenizer,
    eosIds,
    generationConfig,
  };
}

async function readJson(
  folder: string,
  file: string,
  isOptional = false,
): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readFile(path.join(folder, file), 'utf8');
  } catch {
    if (isOptional) return null;
    throw new ModelFolderError(folder, file, 'missing');
  }
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (error) {
    throw new ModelFolderError(folder, file, `malformed JSON (${(error as Error).message})`);
  }
}

function parseConfig(folder: string, raw: Record<string, unknown> | null): ModelConfig {
  const parsed = ModelConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ModelFolderError(
      folder,
      MODEL_FILES.config,
      `${issue.path.join('.') || 'config'}: ${issue.message}`,
    );
  }
  try {
    shapeOf(parsed.data);
  } catch (error) {
    throw new ModelFolderError(folder, MODEL_FILES.config, (error as Error).message);
  }
  return parsed.data;
}

function buildTokenizer(
  folder: string,
  json: Record<string, unknown> | null,
  config: Record<string, unknown>,
): TextTokenizer {
  if (!json || typeof json['model'] !== 'object')
    throw new ModelFolderError(folder, MODEL_FILES.tokenizer, 'has no "model" section');
  try {
    return new TextTokenizer({ tokenizerJson: json, tokenizerConfig: config });
  } catch (error) {
    throw new ModelFolderError(
      folder,
      MODEL_FILES.tokenizer,
      `cannot be loaded (${(error as Error).message})`,
    );
  }
}
