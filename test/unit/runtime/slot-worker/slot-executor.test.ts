import { describe, expect, it, vi } from 'vitest';
import { KvBatch, SPARE_COLUMNS, kvView } from '../../../../src-main/runtime/slot-worker/kv-batch';
import type { KvGeometry } from '../../../../src-main/runtime/model/kv-geometry';
import type { ForwardResult } from '../../../../src-main/runtime/slot-worker/model-runner';
import type { CapturedPage, StepJob } from '../../../../src-main/runtime/slot-worker/protocol';
import { SlotExecutor } from '../../../../src-main/runtime/slot-worker/slot-executor';
import type { Forwarder } from '../../../../src-main/runtime/slot-worker/slot-executor';
import { DEFAULT_SAMPLING } from '../../../../src-main/runtime/sampling/sampler';

const GEOMETRY: KvGeometry = { numLayers: 1, numKvHeads: 1, headDim: 2, kvDtype: 'float32', rows: 'end' };
const PAGE_SIZE = 2;
const VOCAB = 3;
const NO_HISTORY = { promptTailIds: [], outputIds: [] };

/** A forward that writes each new token's id into its K/V (so a copied page shows where it came from). */
const forwarder: Forwarder = {
  geometry: GEOMETRY,
  kvForm: 'present',
  async forward(batch: KvBatch, inputIds: BigInt64Array, numNew: number): Promise<ForwardResult> {
    // A graph returning a whole present is never given a past with spare columns.
    if (batch.width !== batch.numColumns) throw new Error('past with spare columns');
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
    return {
      logits: Float32Array.of(0, 1, 0),
      vocabSize: VOCAB,
      numPositions: 1,
      kv: { form: 'present', tensors: present },
    };
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
    sampler: { ...DEFAULT_SAMPLING, topK: 0, topP: 1, vocabLimit: VOCAB, rngState: 1, history: NO_HISTORY },
    retainedFrom: null,
  },
  decode: null,
  drop: [],
});

const decodeStep: StepJob = {
  type: 'step',
  pageSize: PAGE_SIZE,
  prefill: null,
  decode: { rows: [{ seqId: 'a' }], mayContinue: false },
  drop: [],
};

/** A forward returning only the new columns (a graph with delta outputs), each holding its token's id; records each past it is fed. */
function deltaForwarder(fed: KvBatch[]): Forwarder {
  return {
    geometry: GEOMETRY,
    kvForm: 'new',
    async forward(batch, inputIds, numNew) {
      fed.push(batch);
      const fresh = [0, 1].map((t) =>
        Float32Array.from({ length: numNew * 2 }, (_, i) => Number(inputIds[Math.floor(i / 2)]) + t * 100),
      );
      return {
        logits: Float32Array.of(0, 1, 0),
        vocabSize: VOCAB,
        numPositions: 1,
        kv: { form: 'new', tensors: fresh },
      };
    },
  };
}

/**
 * Sequence 'a' prefills [7, 8, 9] and leaves (page 0 stored, its past retained); then 'b' hits
 * page 0 with new tokens [4, 5], its past from the page or from 'a''s retained one, and takes a
 * decode step. Returns the hit's reply, every past fed to the forward, and the batches
 * `KvBatch.advanced` made from the hit on (how many of them before the hit's reply).
 */
async function hitWithNewColumns(retainedFrom: string | null) {
  const fed: KvBatch[] = [];
  const executor = new SlotExecutor(deltaForwarder(fed), () => performance.now());
  const first = await executor.step(firstChunk('a', [7, 8, 9]));
  await executor.step({ ...decodeStep, decode: null, drop: ['a'] });
  const spy = vi.spyOn(KvBatch.prototype, 'advanced');
  try {
    const job = firstChunk('b', [7, 8, 4, 5]);
    const cachedPages = [first.prefill!.pages[0]!.data];
    const prefill = { ...job.prefill!, tokenIds: [4, 5], cachedPages, captureFromPage: 1, retainedFrom };
    const hit = await executor.step({ ...job, prefill });
    const advancedBeforeReply = spy.mock.calls.length;
    await executor.step({ ...decodeStep, decode: { rows: [{ seqId: 'b' }], mayContinue: false } });
    const advanced = spy.mock.results.map((result) => result.value as KvBatch);
    return { hit, fed, advancedBeforeReply, advanced };
  } finally {
    spy.mockRestore();
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SlotExecutor page copies', () => {
  it('leaves a first token’s pages for the next job, and fills a last step’s pages once the slot is idle', async () => {
    const executor = new SlotExecutor(forwarder, () => performance.now());
    const first = await executor.step(firstChunk('a', [7, 8, 9]));
    const [page0] = first.prefill!.pages;
    const view = (page: CapturedPage) =>
      Array.from(kvView(GEOMETRY, page.data.buffer, page.data.byteOffset, page.data.byteLength));
    executor.tidyWhenIdle(first);
    await tick();
    expect(view(page0!).every((v) => v === 0)).toBe(true); // the main thread is flushing the first token
    const last = await executor.step(decodeStep);
    expect(view(page0!)).toEqual([7, 7, 8, 8, 107, 107, 108, 108]); // filled as the next job began
    const [page1] = last.decode!.pages;
    expect(view(page1!).every((v) => v === 0)).toBe(true); // announced empty: the token did not wait
    executor.tidyWhenIdle(last);
    await tick();
    expect(view(page1!)).toEqual([9, 9, 1, 1, 109, 109, 101, 101]); // the greedy token 1 after 9
  });

  it('gives a first token’s pages the spare buffers it allocated while idle', async () => {
    const executor = new SlotExecutor(forwarder, () => performance.now());
    const first = await executor.step(firstChunk('a', [7, 8, 9, 10]));
    executor.tidyWhenIdle(first);
    const last = await executor.step({ ...decodeStep, drop: ['a'], decode: null });
    executor.tidyWhenIdle(last);
    await tick();
    expect(executor.pageBuffers.spareBytes).toBe(2 * (2 * 2 * 2 * 4)); // two pages: 2 tokens × K,V × 2 floats × 4 bytes
    const next = await executor.step(firstChunk('b', [1, 2, 3, 4, 5]));
    expect(next.prefill!.pages).toHaveLength(2);
    expect(executor.pageBuffers.spareBytes).toBe(0);
  });

  it('gives a graph that returns a whole present its cached past without spare columns', async () => {
    const executor = new SlotExecutor(forwarder, () => performance.now());
    const first = await executor.step(firstChunk('a', [7, 8, 9]));
    await executor.step({ ...decodeStep, decode: null, drop: ['a'] });
    const page = first.prefill!.pages[0]!;
    const job = firstChunk('b', [7, 8, 4]);
    const hit = await executor.step({
      ...job,
      prefill: { ...job.prefill!, tokenIds: [4], cachedPages: [page.data], captureFromPage: 1 },
    });
    expect(hit.prefill!.pastSource).toBe('pages');
    expect(hit.prefill!.sampled).not.toBeNull();
  });

  it('assembles a page hit’s past with spare columns for all its new tokens and more, so its prefill appends in place', async () => {
    const fed: KvBatch[] = [];
    const executor = new SlotExecutor(deltaForwarder(fed), () => performance.now());
    const first = await executor.step(firstChunk('a', [7, 8, 9]));
    await executor.step({ ...decodeStep, decode: null, drop: ['a'] });
    const numNew = SPARE_COLUMNS + 10;
    const job = firstChunk('b', [7, 8, ...Array.from({ length: numNew }, () => 2)]);
    await executor.step({
      ...job,
      prefill: {
        ...job.prefill!,
        tokenIds: job.prefill!.tokenIds.slice(2),
        cachedPages: [first.prefill!.pages[0]!.data],
        captureFromPage: 1,
      },
    });
    await executor.step({ ...decodeStep, decode: { rows: [{ seqId: 'b' }], mayContinue: false } });
    const [hitPast, nextPast] = fed.slice(-2);
    expect(hitPast!.width).toBe(PAGE_SIZE + numNew + SPARE_COLUMNS);
    expect(nextPast!.numColumns).toBe(PAGE_SIZE + numNew);
    expect(Array.from(nextPast!.tensors[0]!.subarray(0, 6))).toEqual([7, 7, 8, 8, 2, 2]);
  });

  it('sends a page hit’s first token before writing its new columns in place, and writes them before the next step and page copy read them', async () => {
    const { hit, fed, advancedBeforeReply, advanced } = await hitWithNewColumns(null);
    expect(hit.prefill!.pastSource).toBe('pages');
    expect(hit.prefill!.sampled).not.toBeNull();
    expect(advancedBeforeReply).toBe(0);
    expect(advanced[0]!.tensors[0]).toBe(fed.at(-2)!.tensors[0]); // in place: the hit's past, not a moved copy
    expect(fed.at(-1)!.tensors[0]).toBe(fed.at(-2)!.tensors[0]); // decoding alone: no gather either
    expect(Array.from(fed.at(-1)!.tensors[0]!.subarray(0, 8))).toEqual([7, 7, 8, 8, 4, 4, 5, 5]);
    const [page1] = hit.prefill!.pages;
    expect(page1!.pageIndex).toBe(1);
    const view = kvView(GEOMETRY, page1!.data.buffer, page1!.data.byteOffset, page1!.data.byteLength);
    expect(Array.from(view)).toEqual([4, 4, 5, 5, 104, 104, 105, 105]);
  });

  it('sends a first token before moving a retained past that lacks spare columns for its new tokens, and moves it for the next step', async () => {
    // 'a' kept its K/V as they came (no spare columns): its retained past has 1 spare column.
    const { hit, fed, advancedBeforeReply, advanced } = await hitWithNewColumns('a');
    expect(hit.prefill!.pastSource).toBe('retained');
    expect(hit.prefill!.sampled).not.toBeNull();
    expect(advancedBeforeReply).toBe(0);
    expect(advanced).not.toHaveLength(0);
    const next = fed.at(-1)!;
    expect(next.numColumns).toBe(4);
    expect(Array.from(next.tensors[0]!.subarray(0, 8))).toEqual([7, 7, 8, 8, 4, 4, 5, 5]);
  });
});

describe('SlotExecutor decode bursts', () => {
  const burst = (numSteps: number, endTokenIds: number[] = []): StepJob => ({
    ...decodeStep,
    decode: { rows: [{ seqId: 'a' }], mayContinue: false, numSteps, endTokenIds },
  });

  it('runs a burst’s steps back to back and replies each in order, with the pages it completed', async () => {
    const fed: KvBatch[] = [];
    const executor = new SlotExecutor(deltaForwarder(fed), () => performance.now());
    await executor.step(firstChunk('a', [7, 8, 9]));
    const reply = await executor.step(burst(3));
    const steps = [reply.decode!, ...reply.laterDecodes!];
    expect(steps.map((s) => s.rows.map((r) => r.tokenId))).toEqual([[1], [1], [1]]);
    // Each step feeds the token the one before sampled: 4, 5, then 6 tokens of K/V.
    expect(fed.slice(1).map((batch) => batch.numColumns)).toEqual([3, 4, 5]);
    expect(steps.map((s) => s.pages.map((p) => p.pageIndex))).toEqual([[1], [], [2]]);
    for (const [i, s] of steps.entries())
      if (i > 0) expect(s.startedAt).toBeGreaterThanOrEqual(steps[i - 1]!.logitsAt);
  });

  it('ends a burst after a step that sampled an end token, replying that step alone', async () => {
    const executor = new SlotExecutor(deltaForwarder([]), () => performance.now());
    await executor.step(firstChunk('a', [7, 8, 9]));
    const reply = await executor.step(burst(3, [1]));
    expect(reply.decode!.rows.map((r) => r.tokenId)).toEqual([1]);
    expect(reply.laterDecodes).toBeUndefined();
  });
});

describe('SlotExecutor burst cut', () => {
  it('ends a burst after the step it is running when the main thread cuts it, and the next job bursts again', async () => {
    const executor = new SlotExecutor(deltaForwarder([]), () => performance.now());
    await executor.step(firstChunk('a', [7, 8, 9]));
    const job: StepJob = {
      ...decodeStep,
      decode: { rows: [{ seqId: 'a' }], mayContinue: false, numSteps: 3 },
    };
    const cut = executor.step(job);
    executor.cutBurst();
    expect((await cut).laterDecodes).toBeUndefined();
    expect((await executor.step(job)).laterDecodes).toHaveLength(2);
  });

  it('reads a cut between the steps of a burst whose forwards hold the thread (no message reaches it during a step)', async () => {
    /** Forwards that finish before they return, as a bound runner on the caller's thread does. */
    class OnThisThread extends SlotExecutor {
      override get isRunOnThisThread(): boolean {
        return true;
      }
    }
    const executor = new OnThisThread(deltaForwarder([]), () => performance.now());
    await executor.step(firstChunk('a', [7, 8, 9]));
    const job: StepJob = {
      ...decodeStep,
      decode: { rows: [{ seqId: 'a' }], mayContinue: false, numSteps: 3 },
    };
    // Delivered as a message would be: on the event loop's next turn, after the burst began.
    setImmediate(() => executor.cutBurst());
    expect((await executor.step(job)).laterDecodes).toBeUndefined();
  });
});
