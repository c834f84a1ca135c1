import * as ort from 'onnxruntime-node';
import type { KvBatch, KvGeometry } from './kv-batch';

/** What one forward returns: logits [rows, numNew, vocab] and the present K/V per layer (key, value, …). */
export interface ForwardResult {
  logits: Float32Array;
  vocabSize: number;
  present: Float32Array[];
}

/** Session options every slot uses; threads bound so two slots can share the cores. */
export interface RunnerOptions {
  numThreads: number;
}

/**
 * Owns one ONNX Runtime session and runs forwards over a K/V batch. Lives in a worker thread:
 * `InferenceSession.create` and `run` block the thread they run on (DESIGN §4).
 */
export class ModelRunner {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly geometry: KvGeometry,
  ) {}

  /** Builds the session from weight bytes and checks the graph matches the config's geometry. */
  static async build(bytes: Uint8Array, geometry: KvGeometry, options: RunnerOptions): Promise<ModelRunner> {
    const session = await ort.InferenceSession.create(bytes, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      intraOpNumThreads: options.numThreads,
      interOpNumThreads: 1,
      // Pool threads must not spin between runs: they would steal the core the main thread needs.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    }).catch((error: Error) => {
      throw new Error(`onnx/model.onnx: ONNX Runtime cannot build a session from it (${error.message})`);
    });
    const problem = graphProblem(session, geometry.numLayers);
    if (problem) {
      await session.release();
      throw new Error(problem);
    }
    return new ModelRunner(session, geometry);
  }

  /** Runs `numNew` tokens per row (row-major ids) on top of the batch's past. */
  async forward(batch: KvBatch, inputIds: BigInt64Array, numNew: number): Promise<ForwardResult> {
    const numRows = batch.rows.length;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', inputIds, [numRows, numNew]),
      attention_mask: new ort.Tensor('int64', batch.attentionMask(numNew), [
        numRows,
        batch.numColumns + numNew,
      ]),
      position_ids: new ort.Tensor('int64', batch.positionIds(numNew), [numRows, numNew]),
    };
    for (let layer = 0; layer < this.geometry.numLayers; layer++) {
      feeds[`past_key_values.${layer}.key`] = new ort.Tensor(
        'float32',
        batch.tensors[2 * layer]!,
        batch.dims,
      );
      feeds[`past_key_values.${layer}.value`] = new ort.Tensor(
        'float32',
        batch.tensors[2 * layer + 1]!,
        batch.dims,
      );
    }
    const outputs = await this.session.run(feeds);
    const logits = outputs['logits']!;
    const present: Float32Array[] = [];
    for (let layer = 0; layer < this.geometry.numLayers; layer++) {
      present.push(outputs[`present.${layer}.key`]!.data as Float32Array);
      present.push(outputs[`present.${layer}.value`]!.data as Float32Array);
    }
    const vocabSize = logits.dims[logits.dims.length - 1]!;
    return { logits: logits.data as Float32Array, vocabSize, present };
  }

  /** Frees the session's memory; the runner is unusable afterwards. */
  async release(): Promise<void> {
    await this.session.release();
  }
}

/** Why a graph does not fit the Hugging Face ONNX layout for `numLayers` layers, or null when it does. */
export function graphProblem(
  session: Pick<ort.InferenceSession, 'inputNames' | 'outputNames'>,
  numLayers: number,
): string | null {
  const inputs = new Set(session.inputNames);
  const outputs = new Set(session.outputNames);
  for (const name of ['input_ids', 'attention_mask', 'position_ids'])
    if (!inputs.has(name)) return `onnx/model.onnx: graph has no input "${name}"`;
  if (!outputs.has('logits')) return 'onnx/model.onnx: graph has no output "logits"';
  const numPastLayers = session.inputNames.filter((n) => /^past_key_values\.\d+\.key$/.test(n)).length;
  if (numPastLayers !== numLayers)
    return `onnx/model.onnx: graph has ${numPastLayers} layers of past_key_values but config.json num_hidden_layers is ${numLayers}`;
  for (let layer = 0; layer < numLayers; layer++) {
    for (const kind of ['key', 'value']) {
      if (!inputs.has(`past_key_values.${layer}.${kind}`))
        return `onnx/model.onnx: missing input past_key_values.${layer}.${kind}`;
      if (!outputs.has(`present.${layer}.${kind}`))
        return `onnx/model.onnx: missing output present.${layer}.${kind}`;
    }
  }
  return null;
}

/** The logits of row `row`, position `position` of a [rows, numNew, vocab] array, as a view (no copy). */
export function logitsRow(
  result: ForwardResult,
  numNew: number,
  row: number,
  position: number,
): Float32Array {
  const start = (row * numNew + position) * result.vocabSize;
  return result.logits.subarray(start, start + result.vocabSize);
}
