import * as ort from 'onnxruntime-node';
import { GRAPH_IO, kvNamesOf, pastName } from '../model/graph-io-names';
import { NEW_COLUMN_INDEX } from '../model/onnx-graph/present-deltas';
import type { DecoderIo } from '../model/decoder-io';
import type { KvArray, KvBatch } from './kv-batch';
import { attentionMaskOf, newColumnIndexOf, positionIdsOf, sequenceLengthsOf } from './kv-feeds';

/** Which positions' logits a forward needs: the last one (sampling) or all (scoring text). */
export type LogitsWanted = 'last' | 'all';

/** The past's tensors of the last forward, reused while its arrays and width stay. */
interface PastFeeds {
  arrays: readonly KvArray[];
  width: number;
  numRows: number;
  tensors: ort.Tensor[];
}

/**
 * Builds the feeds of one runner's forwards. A decode step appends its new columns into the
 * past's spare columns, so step after step the past is the same arrays at the same width: their
 * tensors are made once per relayout, not per token, and the feed names and constant scalars
 * once per runner. The last past's arrays stay referenced until the next forward.
 */
export class ForwardFeeds {
  private readonly pastNames: string[];
  private readonly keepLast = new ort.Tensor('int64', BigInt64Array.of(1n), []);
  private readonly keepAll = new ort.Tensor('int64', BigInt64Array.of(0n), []);
  private past: PastFeeds | null = null;

  constructor(
    private readonly io: DecoderIo,
    numLayers: number,
    private readonly hasNewColumnIndex: boolean,
  ) {
    this.pastNames = kvNamesOf(numLayers, pastName);
  }

  /** The feeds of a forward adding `numNew` tokens per row (row-major `inputIds`) to `batch`. */
  of(
    batch: KvBatch,
    inputIds: BigInt64Array,
    numNew: number,
    wanted: LogitsWanted,
  ): Record<string, ort.Tensor> {
    const { io } = this;
    const numRows = batch.rows.length;
    const feeds: Record<string, ort.Tensor> = {
      [GRAPH_IO.inputIds]: new ort.Tensor('int64', inputIds, [numRows, numNew]),
    };
    if (io.hasLengthInputs) {
      const { seqlensK, total } = sequenceLengthsOf(batch, numNew);
      feeds[GRAPH_IO.seqlensK] = new ort.Tensor('int32', seqlensK, [numRows]);
      feeds[GRAPH_IO.totalSequenceLength] = new ort.Tensor('int32', Int32Array.of(total), []);
    } else {
      const { mask, width } = attentionMaskOf(batch, numNew);
      feeds[GRAPH_IO.attentionMask] = new ort.Tensor('int64', mask, [numRows, width]);
    }
    if (io.hasPositionIds)
      feeds[GRAPH_IO.positionIds] = new ort.Tensor('int64', positionIdsOf(batch, numNew), [numRows, numNew]);
    if (this.hasNewColumnIndex) {
      const dims = [numRows, batch.geometry.numKvHeads, numNew, 1];
      feeds[NEW_COLUMN_INDEX] = new ort.Tensor('int64', newColumnIndexOf(batch, numNew), dims);
    }
    // HF semantics: keep the last N positions' logits, 0 = all of them.
    if (io.logitsToKeepInput) feeds[io.logitsToKeepInput] = wanted === 'last' ? this.keepLast : this.keepAll;
    // A merged decoder takes its with-past branch only when there is a past.
    if (io.hasUseCacheBranch)
      feeds[GRAPH_IO.useCacheBranch] = new ort.Tensor('bool', Uint8Array.of(batch.width > 0 ? 1 : 0), [1]);
    const past = this.pastOf(batch);
    for (let i = 0; i < past.length; i++) feeds[this.pastNames[i]!] = past[i]!;
    return feeds;
  }

  /** The past's tensors: the last forward's when the batch lies in the same arrays at the same width. */
  private pastOf(batch: KvBatch): ort.Tensor[] {
    const last = this.past;
    if (
      last &&
      last.arrays === batch.tensors &&
      last.width === batch.width &&
      last.numRows === batch.rows.length
    )
      return last.tensors;
    const { kvDtype } = batch.geometry;
    const dims = batch.dims;
    const tensors = batch.tensors.map((array) => new ort.Tensor(kvDtype, array, dims));
    this.past = { arrays: batch.tensors, width: batch.width, numRows: batch.rows.length, tensors };
    return tensors;
  }
}
