import { describe, expect, it } from 'vitest';
import { KvBatch, kvView } from '../../../../src-main/runtime/engine/kv-batch';
import type { KvGeometry } from '../../../../src-main/runtime/engine/kv-batch';
import type { ForwardResult } from '../../../../src-main/runtime/engine/model-runner';
import type { StepJob } from '../../../../src-main/runtime/engine/protocol';
import { SlotExecutor } from '../../../../src-main/runtime/engine/slot-executor';
import type { Forwarder } from '../../../../src-main/runtime/engine/slot-executor';

const GEOMETRY: KvGeometry = { numLayers: 1, numKvHeads: 1, headDim: 2, kvDtype: 'float32' };
const PAGE_SIZE = 2;
const VOCAB = 3;

/** A forward that writes each new token's id into its K/V (so a copied page shows where it came from). */
const forwarder: Forwarder = {
  geometry: GEOMETRY,
  async forward(batch: KvBatch, inputIds: BigInt64Array, numNew: number): Promise<ForwardResult> {
    const numTokens = batch.numColumns + numNew;
    const present = [0, 1].map((t) => {
      const values = new Float32Array(numTokens * GEOMETRY.headDim);
      values.set(batch.tensors[t] ?? []);
      for (let i = 0; i < numNew; i++)
        values.fill(
          Number(inputIds[i]) + t * 100,
          (batch.numColumns + i) * 2,
          (batch.numColumns + i + 1) * 2,
        );
      return values;
    });
    return { logits: Float32Array.of(0, 1, 0), vocabSize: VOCAB, numPositions: 1, present };
  },
};

const firstChunk = (seqId: string, tokenIds: number[]): StepJob => ({
  type: 'step',
  pageSize: PAGE_SIZE,
  prefill: {
    seqId,
    tokenIds,
    cachedPages: [],
    isLastChunk: true,
    captureFromPage: 0,
    sampler: { temperature: 0, topK: 0, topP: 1, vocabLimit: VOCAB, rngState: 1 },
    retainedFrom: null,
  },
  decode: null,
  drop: [],
});

describe('SlotExecutor page copies', () => {
  it('fills the pages a reply announced once the slot is idle, before any next job arrives', async () => {
    const executor = new SlotExecutor(forwarder, () => performance.now());
    const reply = await executor.step(firstChunk('a', [7, 8, 9, 10]));
    const pages = reply.prefill!.pages;
    expect(pages.map((p) => p.pageIndex)).toEqual([0, 1]);
    const view = (i: number) =>
      Array.from(
        kvView(GEOMETRY, pages[i]!.data.buffer, pages[i]!.data.byteOffset, pages[i]!.data.byteLength),
      );
    expect(view(0).every((v) => v === 0)).toBe(true); // announced empty: the token did not wait for the copy
    executor.tidyWhenIdle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(view(0)).toEqual([7, 7, 8, 8, 107, 107, 108, 108]);
    expect(view(1)).toEqual([9, 9, 10, 10, 109, 109, 110, 110]);
  });
});
