import * as ort from 'onnxruntime-node';
import { FUSED_INPUTS } from '../model/fused-graph/fused-io';
import { GRAPH_IO, kvNamesOf, pastName, presentName } from '../model/graph-io-names';
import type { DecoderIo } from '../model/decoder-io';
import { halfArrayToFloat32 } from '../model/float16';
import type { KvGeometry } from '../model/kv-geometry';

type Feeds = Record<string, ort.Tensor>;
/** One graph's presents, layer by layer (key then value), fed back as the next step's past. */
export type KvArrays = Array<Float32Array | Uint16Array>;

/** One graph under the fusion check: its session and how to feed it a step over `past`. */
export interface CheckedSide {
  session: ort.InferenceSession;
  feeds(ids: number[], pastLength: number, past: KvArrays): Feeds;
  logitsType: 'float32' | 'float16';
}

/** One forward of a side: every position's logits as float32 (`width` per row) and its presents. */
export interface CheckedStep {
  width: number;
  logits: Float32Array;
  past: KvArrays;
}

const int64 = (values: number[], dims: number[]) =>
  new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

function pastFeeds(
  geometry: KvGeometry,
  kvType: 'float32' | 'float16',
  pastLength: number,
  past: KvArrays,
): Feeds {
  const feeds: Feeds = {};
  const dims = [1, geometry.numKvHeads, pastLength, geometry.headDim];
  for (let layer = 0; layer < geometry.numLayers; layer++)
    (['key', 'value'] as const).forEach((kind, i) => {
      const data = past[2 * layer + i] ?? (kvType === 'float16' ? new Uint16Array(0) : new Float32Array(0));
      feeds[pastName(layer, kind)] = new ort.Tensor(kvType, data, dims);
    });
  return feeds;
}

/** The original graph fed as the engine feeds it (mask of ones, positions, keep-all, cache branch). */
export function originalSide(
  session: ort.InferenceSession,
  io: DecoderIo,
  geometry: KvGeometry,
): CheckedSide {
  return {
    session,
    logitsType: io.logitsDtype,
    feeds: (ids, pastLength, past) => {
      const total = pastLength + ids.length;
      const feeds: Feeds = {
        [GRAPH_IO.inputIds]: int64(ids, [1, ids.length]),
        [GRAPH_IO.attentionMask]: int64(new Array<number>(total).fill(1), [1, total]),
        ...pastFeeds(geometry, io.kvDtype, pastLength, past),
      };
      if (io.hasPositionIds)
        feeds[GRAPH_IO.positionIds] = int64(range(pastLength, ids.length), [1, ids.length]);
      if (io.logitsToKeepInput) feeds[io.logitsToKeepInput] = int64([0], []);
      if (io.hasUseCacheBranch)
        feeds[GRAPH_IO.useCacheBranch] = new ort.Tensor('bool', Uint8Array.of(pastLength > 0 ? 1 : 0), [1]);
      return feeds;
    },
  };
}

/** The fused graph fed GroupQueryAttention's lengths (one row, start-aligned) and keep-all. */
export function fusedSide(session: ort.InferenceSession, geometry: KvGeometry): CheckedSide {
  return {
    session,
    logitsType: 'float32',
    feeds: (ids, pastLength, past) => {
      const total = pastLength + ids.length;
      return {
        [GRAPH_IO.inputIds]: int64(ids, [1, ids.length]),
        [FUSED_INPUTS.seqlensK]: new ort.Tensor('int32', Int32Array.of(total - 1), [1]),
        [FUSED_INPUTS.totalSequenceLength]: new ort.Tensor('int32', Int32Array.of(total), []),
        [FUSED_INPUTS.logitsToKeep]: int64([0], []),
        ...pastFeeds(geometry, 'float32', pastLength, past),
      };
    },
  };
}

/** One forward of `side` over `past` (pastLength columns): its logits and presents. */
export async function checkedStep(
  side: CheckedSide,
  ids: number[],
  pastLength: number,
  past: KvArrays,
  numLayers: number,
): Promise<CheckedStep> {
  const presents = kvNamesOf(numLayers, presentName);
  const outputs = await side.session.run(side.feeds(ids, pastLength, past), [GRAPH_IO.logits, ...presents]);
  const logits = outputs[GRAPH_IO.logits]!.data as Float32Array | Uint16Array;
  return {
    width: outputs[GRAPH_IO.logits]!.dims.at(-1)!,
    logits:
      side.logitsType === 'float16' ? halfArrayToFloat32(logits as Uint16Array) : (logits as Float32Array),
    past: presents.map((name) => outputs[name]!.data as Float32Array | Uint16Array),
  };
}
