// Which files of a repository run here, as the user picks them: each GGUF model file (a split
// set as one choice), each ONNX variant of a Hugging Face ONNX folder (the graph, its external
// data and the folder's config and tokenizer files), and each onnxruntime-genai folder. A
// vision projector (`mmproj-…`) is no model on its own; the rest (safetensors, READMEs) is
// counted so the panel can say the repository holds more.

import path from 'node:path';
import { ggufModelName, isLaterShard, shardPathsOf } from '../../runtime/model/gguf/gguf-files';
import { GENAI_VARIANT, modelRefOf, VARIANT_FILES } from '../../runtime/model/variant-names';
import { TOKENIZER_FILES } from '../../runtime/tokenize/tokenizer-files';
import type { HubFile } from './hub-client';

/** What a choice is, as the models folder will list it. */
export type ChoiceKind = 'gguf' | 'onnx' | 'genai';

/** One file of a choice and where it goes, relative to the models folder. */
export interface ChoiceFile {
  file: HubFile;
  target: string;
}

/**
 * One choice: its files and their places, the folder it makes (null: a GGUF at the folder's
 * top), the file that makes it a model (renamed into place last), its name and quantization.
 */
export interface HubModelChoice {
  filePath: string;
  kind: ChoiceKind;
  files: ChoiceFile[];
  folderName: string | null;
  /** The target (relative) of the file whose arrival makes the model listable. */
  primary: string;
  /** The model reference it will list under (`name`, `name:q4`). */
  modelName: string;
  quant: string | null;
  numBytes: number;
  hasSha256: boolean;
}

/** llama.cpp's quantization names as files carry them (`Q4_K_M`, `IQ3_XXS`, `Q8_0`, `F16`, `BF16`). */
const QUANT = /(?:^|[-_.])((?:I?Q\d(?:_[A-Z0-9]{1,4}){0,2})|BF16|F16|F32|FP16|FP32)$/i;
/** The files of a Hugging Face ONNX folder beside its graphs that reading it takes (those present). */
const FOLDER_FILES = ['config.json', 'generation_config.json', ...Object.values(TOKENIZER_FILES)];

/** The choices of a repository's files, and how many files are in none. */
export function modelChoicesOf(
  repo: string,
  files: readonly HubFile[],
): { choices: HubModelChoice[]; numOtherFiles: number } {
  const choices = [...ggufChoices(files), ...onnxChoices(repo, files), ...genaiChoices(repo, files)];
  const used = new Set(choices.flatMap((c) => c.files.map((f) => f.file.path)));
  return { choices, numOtherFiles: files.filter((f) => !used.has(f.path)).length };
}

function ggufChoices(files: readonly HubFile[]): HubModelChoice[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const choices: HubModelChoice[] = [];
  for (const file of files) {
    const base = path.posix.basename(file.path);
    if (!base.toLowerCase().endsWith('.gguf') || isLaterShard(base)) continue;
    if (base.toLowerCase().startsWith('mmproj')) continue;
    const shards = shardPathsOf(file.path).map((p) => byPath.get(p.split(path.sep).join('/')));
    if (shards.some((s) => s === undefined)) continue; // a set missing a shard cannot run
    const name = ggufModelName(base);
    const set = (shards as HubFile[]).map((f) => ({ file: f, target: path.posix.basename(f.path) }));
    // A GGUF lists under its name alone (its one variant is `gguf`); the panel shows the quantization.
    const quant = QUANT.exec(name)?.[1]?.toUpperCase() ?? null;
    choices.push(choiceOf(file.path, 'gguf', set, null, base, name, quant));
  }
  return choices;
}

/** Each variant file of a Hugging Face ONNX folder at the repository's top (config.json beside it). */
function onnxChoices(repo: string, files: readonly HubFile[]): HubModelChoice[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  if (!byPath.has('config.json') || !byPath.has(TOKENIZER_FILES.tokenizer)) return [];
  const folderName = repoNameOf(repo);
  const shared = FOLDER_FILES.flatMap((name) => {
    const file = byPath.get(name);
    return file ? [{ file, target: `${folderName}/${name}` }] : [];
  });
  const choices: HubModelChoice[] = [];
  for (const dir of ['onnx/', '']) {
    for (const [variant, name] of VARIANT_FILES) {
      const graph = byPath.get(`${dir}${name}`);
      if (!graph || choices.some((c) => c.quant === variant)) continue;
      // External data: `model_q4.onnx_data`, `model.onnx.data`, `model.onnx_data_1` beside the graph.
      const data = files.filter(
        (f) => f.path.startsWith(`${dir}${name}_data`) || f.path.startsWith(`${dir}${name}.data`),
      );
      const own = [graph, ...data].map((f) => ({ file: f, target: `${folderName}/${f.path}` }));
      const primary = `${folderName}/${graph.path}`;
      const modelName = modelRefOf(folderName, variant);
      choices.push(
        choiceOf(graph.path, 'onnx', [...shared, ...own], folderName, primary, modelName, variant),
      );
    }
  }
  return choices;
}

/** Each folder holding a genai_config.json (onnxruntime-genai's builder): all its files, as one folder. */
function genaiChoices(repo: string, files: readonly HubFile[]): HubModelChoice[] {
  const configs = files.filter((f) => path.posix.basename(f.path) === 'genai_config.json');
  return configs.map((config) => {
    const dir = path.posix.dirname(config.path);
    const inDir = files.filter((f) => path.posix.dirname(f.path) === dir);
    const folderName = dir === '.' ? repoNameOf(repo) : `${repoNameOf(repo)}-${path.posix.basename(dir)}`;
    const set = inDir.map((f) => ({ file: f, target: `${folderName}/${path.posix.basename(f.path)}` }));
    const primary = `${folderName}/genai_config.json`;
    return choiceOf(
      config.path,
      'genai',
      set,
      folderName,
      primary,
      modelRefOf(folderName, GENAI_VARIANT),
      null,
    );
  });
}

function choiceOf(
  filePath: string,
  kind: ChoiceKind,
  files: ChoiceFile[],
  folderName: string | null,
  primary: string,
  modelName: string,
  quant: string | null,
): HubModelChoice {
  return {
    filePath,
    kind,
    files,
    folderName,
    primary,
    modelName,
    quant,
    numBytes: files.reduce((sum, f) => sum + (f.file.numBytes ?? 0), 0),
    hasSha256: files.every((f) => f.file.check !== null),
  };
}

/** The folder a repository's model goes into: its name without the owner. */
function repoNameOf(repo: string): string {
  return repo.split('/').pop()!;
}
