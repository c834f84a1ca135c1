import { statSync } from 'node:fs';
import path from 'node:path';
import type { ModelShape } from './config';
import { decoderIoOf, GraphContractError, weightDtypeLabel } from './decoder-io';
import type { DecoderIo } from './decoder-io';
import { describeReadError, resolveInside } from './folder-files';
import { ModelFolderError } from './model-folder-error';
import { readGraphSummary } from './onnx-graph/graph-summary';
import { TruncatedProto } from './onnx-graph/proto-reader';
import type { VariantFile, VariantName } from './variants';

/** An external data file a graph reads: its name as the graph writes it and its real path in the folder. */
export interface ExternalDataFile {
  location: string;
  path: string;
  numBytes: number;
}

/** One variant's ONNX file, checked at listing: where its bytes are and how to feed it. */
export interface VariantGraph {
  variant: VariantName;
  /** The ONNX file, relative to the model folder (`onnx/model_q4.onnx`). */
  file: string;
  onnxPath: string;
  onnxBytes: number;
  externalData: ExternalDataFile[];
  /** The ONNX file plus its external data, in bytes. */
  weightBytes: number;
  /** Storage of the weights as read from the graph (`fp16`, `int4`, `int4 + fp32`, …). */
  weightDtype: string;
  /** Weights in the graph (initializer elements, 4-bit codes counted one each). */
  numParams: number;
  /** True when any initializer is stored as an integer code (MatMulNBits, int8 and 4-bit kinds), not as floats. */
  hasQuantizedWeights: boolean;
  io: DecoderIo;
}

/** Initializer kinds that hold floats or index/shape data, not quantized weights. */
const UNQUANTIZED_KINDS: ReadonlySet<string> = new Set([
  'float32',
  'float16',
  'bfloat16',
  'float64',
  'int64',
  'int32',
  'bool',
]);

/**
 * Reads a variant's graph structure (no tensor payloads) and checks it: the file and its external
 * data inside the folder and complete, the decoder contract, the config's geometry. Throws
 * ModelFolderError naming the file; nothing is loaded, so a bad file never half-loads a slot.
 */
export function inspectVariant(
  folder: string,
  found: VariantFile,
  shape: ModelShape,
  tokenizerVocab: number,
): VariantGraph {
  const onnxPath = resolveInside(folder, found.file)!;
  const fail = (problem: string): never => {
    throw new ModelFolderError(folder, found.file, problem);
  };
  let summary;
  try {
    summary = readGraphSummary(onnxPath);
  } catch (error) {
    if (error instanceof TruncatedProto) return fail(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    return fail(
      code ? describeReadError(error) : `is not a readable ONNX model (${(error as Error).message})`,
    );
  }
  let io: DecoderIo;
  try {
    io = decoderIoOf(summary, shape, tokenizerVocab);
  } catch (error) {
    if (error instanceof GraphContractError) return fail(error.message);
    throw error;
  }
  const externalData = summary.external.map((ref) =>
    externalFile(folder, found.file, ref.location, ref.neededBytes),
  );
  return {
    variant: found.variant,
    file: found.file,
    onnxPath,
    onnxBytes: summary.fileBytes,
    externalData,
    weightBytes: summary.fileBytes + externalData.reduce((sum, f) => sum + f.numBytes, 0),
    weightDtype: weightDtypeLabel(summary),
    numParams: summary.numParams,
    hasQuantizedWeights: [...summary.weightBytes.keys()].some((kind) => !UNQUANTIZED_KINDS.has(kind)),
    io,
  };
}

/** Checks one external data file: a plain name relative to the graph, inside the folder, long enough. */
function externalFile(
  folder: string,
  onnxFile: string,
  location: string,
  neededBytes: number,
): ExternalDataFile {
  const fail = (problem: string): never => {
    throw new ModelFolderError(folder, onnxFile, problem);
  };
  if (!location || path.isAbsolute(location) || location.split(/[\\/]/).includes('..'))
    return fail(`external data "${location}" is outside the model folder; refused`);
  const rel = path.join(path.dirname(onnxFile), location);
  let real: string;
  try {
    real = resolveInside(folder, rel)!;
  } catch (error) {
    if (error instanceof ModelFolderError) return fail(`external data ${error.file}: ${error.problem}`);
    throw error;
  }
  const numBytes = statSync(real).size;
  if (numBytes < neededBytes)
    fail(
      `external data ${rel} is ${numBytes} bytes but the graph reads up to byte ${neededBytes}: truncated`,
    );
  return { location, path: real, numBytes };
}
