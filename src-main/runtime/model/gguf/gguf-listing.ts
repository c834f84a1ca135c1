// What the catalogue makes of a GGUF file (or split set): a model that loads, converted into the
// graph cache on its first load, or the reason it cannot, in words. Never throws on a bad file.

import { GraphContractError } from '../decoder-io';
import type { DefaultSampling } from '../genai/genai-config';
import { inspectVariant } from '../inspect-variant';
import type { VariantGraph } from '../inspect-variant';
import type { ModelFolder } from '../load-folder';
import { ModelFolderError } from '../model-folder-error';
import type { ContentRevisions } from '../revisions';
import { TemplateError } from '../../tokenize/chat-template';
import { GGUF_VARIANT } from '../variants';
import { NotSupportedYet, unusableSentence } from '../listing-status';
import type { UnusableStatus } from '../listing-status';
import { GgufModelError } from './gguf-architecture';
import { convertedDirOf, CONVERTED_FILES, isConverted } from './gguf-convert';
import { ggufFolderOf, ggufRevisionsOf, pendingGraphOf } from './gguf-folder';
import { GgufFormatError } from './gguf-header';
import { inspectGguf } from './gguf-model';
import type { GgufModel } from './gguf-model';
import { GgufTokenizerError } from '../../tokenize/gguf-tokenizer';
import { storageLabelOf } from './storage-plan';

/** A conversion a GGUF model's first load does: the file, the folder it converts into, its bytes. */
export interface GgufConversion {
  file: string;
  dir: string;
  bytesTotal: number;
}

/**
 * A GGUF that loads (its conversion still to do, or done), or why it cannot: `unsupported` (its
 * problem is what is not supported and what is) or `broken`.
 */
export type GgufListing =
  | {
      status: 'ok';
      folder: ModelFolder;
      graph: VariantGraph;
      revisions: ContentRevisions;
      /** null once converted. */
      conversion: GgufConversion | null;
    }
  | { status: UnusableStatus; problem: string };

/**
 * Lists the GGUF at `file`: read (headers only), checked, its tokenizer rebuilt and template
 * test-rendered, and its graph the converted one in `convertedRoot` or the one conversion will
 * write there. `convertedRoot` null: the file is described but cannot load (no folder to convert into).
 */
export function listGguf(
  file: string,
  convertedRoot: string | null,
  defaultSampling: DefaultSampling | null,
): GgufListing {
  let model: GgufModel;
  try {
    model = inspectGguf(file);
  } catch (error) {
    if (error instanceof NotSupportedYet) return { status: 'unsupported', problem: error.message };
    return { status: 'broken', problem: readProblem(error) };
  }
  const about = `is a GGUF model (${ggufSummaryOf(model)})`;
  if (!convertedRoot)
    return {
      status: 'broken',
      problem: `${about}; converting it needs the app's data folder, which this run has none of`,
    };
  try {
    const folder = ggufFolderOf(model, file, defaultSampling);
    const dir = convertedDirOf(convertedRoot, model.set.identity);
    const found = { variant: GGUF_VARIANT, file: CONVERTED_FILES.graph } as const;
    const isDone = isConverted(dir);
    const graph = isDone
      ? inspectVariant(dir, found, folder.shape, folder.tokenizer.vocabSize)
      : pendingGraphOf(model, dir, folder.shape, folder.tokenizer.vocabSize);
    folder.variants = [{ found, status: 'ok', graph }];
    const bytesTotal = [...model.set.tensors.values()].reduce((sum, t) => sum + t.numBytes, 0);
    const conversion = isDone ? null : { file, dir, bytesTotal };
    return { status: 'ok', folder, graph, revisions: ggufRevisionsOf(model), conversion };
  } catch (error) {
    if (error instanceof TemplateError)
      return { status: 'broken', problem: `${about}, whose chat template ${error.message}` };
    if (error instanceof GraphContractError)
      return {
        status: 'broken',
        problem: `${about}; its converted graph cannot run in this build: ${error.message}`,
      };
    if (error instanceof ModelFolderError)
      return {
        status: 'broken',
        problem: `${about}; its conversion ${error.file} is unusable (${error.problem}): delete ${error.folder} to convert it again`,
      };
    throw error;
  }
}

/** What a GGUF is, in a few words: architecture, file type, layers, vocabulary, converted storage. */
export function ggufSummaryOf(model: GgufModel): string {
  const { dims } = model;
  return (
    `${model.architecture}, ${model.fileType}, ${dims.numLayers} layers, ` +
    `${dims.vocabSize}-token vocabulary, stored as ${storageLabelOf(model.plan)}`
  );
}

/** The reason a GGUF file found inside a model folder is not run from there (the catalogue lists it on its own). */
export function ggufListingProblem(file: string): string {
  try {
    return `is a GGUF model (${ggufSummaryOf(inspectGguf(file))}); put the .gguf file itself in the models folder to run it`;
  } catch (error) {
    return readProblem(error);
  }
}

function readProblem(error: unknown): string {
  if (error instanceof NotSupportedYet)
    return `is a GGUF model, ${unusableSentence('unsupported', error.message)}`;
  if (
    error instanceof GgufFormatError ||
    error instanceof GgufModelError ||
    error instanceof GgufTokenizerError
  )
    return `is a GGUF file that cannot be used: ${error.message}`;
  const code = (error as NodeJS.ErrnoException).code;
  return `is a GGUF file that cannot be read (${code ?? (error as Error).message})`;
}
