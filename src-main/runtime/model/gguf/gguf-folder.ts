// A GGUF model as the catalogue holds it: a ModelFolder whose tokenizer, chat template, shape and
// end ids come from the file's metadata (so requests route before anything is converted), its
// revisions from the file's identity (nothing hashes gigabytes at listing), and its graph: the
// converted one once the conversion folder exists, else the one the conversion will write,
// predicted from the writer's own declaration (fused-io.ts) and the storage plan.

import path from 'node:path';
import { FUSED_OPS, fusedIoOf } from '../fused-graph/fused-io';
import { decoderIoOf } from '../decoder-io';
import type { VariantGraph } from '../inspect-variant';
import type { ModelFolder } from '../load-folder';
import type { ModelShape } from '../config';
import type { GraphSummary } from '../onnx-graph/graph-summary';
import { sha256 } from '../revisions';
import type { ContentRevisions } from '../revisions';
import { TextTokenizer } from '../../tokenize/tokenizer';
import { GGUF_VARIANT } from '../variants';
import type { DefaultSampling } from '../genai/genai-config';
import { CONVERTED_FILES } from './gguf-convert';
import type { GgufModel } from './gguf-model';
import { storageLabelOf } from './storage-plan';
import type { MappingFidelity } from './weight-types';

/** The folder of a GGUF model (its tokenizer built from the metadata); throws TemplateError for a template that fails. */
export function ggufFolderOf(
  model: GgufModel,
  file: string,
  defaultSampling: DefaultSampling | null,
): ModelFolder {
  const { dims } = model;
  const tokenizer = new TextTokenizer(model.tokenizer);
  tokenizer.checkChatTemplate();
  const eosIds = [...model.eosIds];
  const eosToken = tokenizer.eosToken ? tokenizer.idOf(tokenizer.eosToken) : undefined;
  if (eosToken !== undefined && !eosIds.includes(eosToken)) eosIds.push(eosToken);
  const shape: ModelShape = {
    numLayers: dims.numLayers,
    numKvHeads: dims.numKvHeads,
    headDim: dims.headDim,
    vocabSize: dims.vocabSize,
    hiddenSize: dims.hiddenSize,
    maxPositions: dims.contextLength,
  };
  return {
    folder: file,
    format: 'gguf',
    config: {
      model_type: model.architecture,
      gguf_file_type: model.fileType,
      gguf_fidelity: model.plan.fidelity,
    },
    shape,
    tokenizer,
    eosIds,
    generationConfig: {},
    variants: [],
    defaultVariant: GGUF_VARIANT,
    defaultSampling,
  };
}

/** What the slot card says a converted GGUF's weights are, per mapping fidelity. */
const FIDELITY_WORDS: Record<MappingFidelity, string> = {
  exact: 'every block kept exactly as the file stores it',
  requantized: 'the token embedding re-quantized to 8 bits (not bit-exact)',
};

/**
 * Where a model's weights come from, in words, for a GGUF (`GGUF q4_k_m, converted to ONNX: every
 * block kept …`); null for any other folder.
 */
export function weightsOriginOf(folder: Pick<ModelFolder, 'format' | 'config'>): string | null {
  if (folder.format !== 'gguf') return null;
  const fileType = String(folder.config['gguf_file_type'] ?? 'gguf');
  const fidelity = folder.config['gguf_fidelity'] as MappingFidelity | undefined;
  return `GGUF ${fileType}, converted to ONNX${fidelity && FIDELITY_WORDS[fidelity] ? `: ${FIDELITY_WORDS[fidelity]}` : ''}`;
}

/**
 * Revisions from the file itself: the model revision is its identity (each shard's size, mtime
 * and header digest), the tokenizer revision a hash of the tokenizer and template rebuilt from it.
 */
export function ggufRevisionsOf(model: GgufModel): ContentRevisions {
  const { tokenizerJson, tokenizerConfig } = model.tokenizer;
  return {
    modelRevision: sha256(`gguf\n${model.set.identity}`),
    tokenizerRevision: sha256(JSON.stringify([tokenizerJson, tokenizerConfig])),
  };
}

/**
 * The graph the conversion into `dir` will write: the fused writer's inputs, outputs and
 * operators, checked by the same decoder contract as any graph (GraphContractError when this
 * build cannot run it), sized by the storage plan. Replaced by the written graph once converted.
 */
export function pendingGraphOf(
  model: GgufModel,
  dir: string,
  shape: ModelShape,
  tokenizerVocab: number,
): VariantGraph {
  const { inputs, outputs } = fusedIoOf(model.dims);
  const tensorInfo = (t: { name: string; type: string; dims: Array<number | string> }) => ({
    name: t.name,
    elemType: t.type,
    dims: t.dims,
  });
  const summary: GraphSummary = {
    fileBytes: 0,
    irVersion: 8,
    opsets: [],
    inputs: inputs.map(tensorInfo),
    outputs: outputs.map(tensorInfo),
    ops: new Map(FUSED_OPS.map((op) => [op, 1])),
    weightBytes: model.plan.bytesByKind,
    numParams: model.plan.numParams,
    external: [],
    // Read from the optimized graph a slot saves (the Slots card's count), not from this plan.
    numStepNodes: 0,
  };
  const io = decoderIoOf(summary, shape, tokenizerVocab);
  const weightBytes = [...model.plan.bytesByKind.values()].reduce((a, b) => a + b, 0);
  return {
    variant: GGUF_VARIANT,
    file: CONVERTED_FILES.graph,
    onnxPath: path.join(dir, CONVERTED_FILES.graph),
    onnxBytes: 0,
    externalData: [
      {
        location: path.basename(CONVERTED_FILES.data),
        path: path.join(dir, CONVERTED_FILES.data),
        numBytes: weightBytes,
      },
    ],
    weightBytes,
    weightDtype: storageLabelOf(model.plan),
    numParams: model.plan.numParams,
    hasQuantizedWeights: [...model.plan.bytesByKind.keys()].some((kind) => kind.startsWith('int')),
    io,
  };
}
