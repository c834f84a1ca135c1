import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunner, runnerSpecOf } from '../../../../src-main/runtime/slot-worker/open-runner';
import { loadBoundOrt } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-library';
import { BoundRunner } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-runner';
import { BoundSlotExecutor } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-slot-executor';
import type { CapturedPage, StepJob, SteppedReply } from '../../../../src-main/runtime/slot-worker/protocol';
import { SlotExecutor } from '../../../../src-main/runtime/slot-worker/slot-executor';
import { ModelCatalogue } from '../../../../src-main/runtime/model/catalogue';
import type { CatalogueModel } from '../../../../src-main/runtime/model/catalogue';
import { RevisionCache } from '../../../../src-main/runtime/model/revisions';
import { DEFAULT_SAMPLING } from '../../../../src-main/runtime/sampling/sampler';
import { maxAbs, maxAbsDifference } from '../../../support/float-arrays';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../support/models';

const REFERENCE = JSON.parse(
  readFileSync(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID, 'greedy-reference.json'), 'utf8'),
) as { cases: Array<{ prompt: number[] }> };
const OPTIONS = { numThreads: 1, canSpinThreads: true };
const PAGE_SIZE = 4;
const bound = loadBoundOrt();
/** Tokens per row the granted script's buffer holds (its longest row stays below). */
const GRANT_CAPACITY = 32;
/** Rows the scheduler would grant each job of the script: one per sequence seated after its drops. */
const GRANT_ROWS = [1, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, null, null, 1, null];
const isRequired = process.env['FF_REQUIRE_NATIVE'] === '1';

interface Executor {
  step(job: StepJob): Promise<SteppedReply>;
  runAhead(): void;
}

const greedy = (vocabLimit: number) => ({
  ...DEFAULT_SAMPLING,
  temperature: 0,
  vocabLimit,
  rngState: 1,
  history: { promptTailIds: [], outputIds: [] },
});

/**
 * A scripted session of a slot: two prompts prefilled and decoded together (running ahead), one
 * leaving, a next turn of it from its retained past, another from copied pages, and one more
 * from its pages seated as a remembered past (as after a restart). Returns every
 * sampled token, past source and captured page, in order.
 */
async function script(executor: Executor, vocabLimit: number, grantRows: Array<number | null> = []) {
  const [a, b] = REFERENCE.cases.map((c) => c.prompt);
  const prefill = (
    seqId: string,
    tokenIds: number[],
    cachedPages: CapturedPage[],
    retainedFrom: string | null,
  ) => ({
    seqId,
    tokenIds,
    cachedPages: cachedPages.map((page) => page.data),
    isLastChunk: true,
    captureFromPage: cachedPages.length,
    sampler: greedy(vocabLimit),
    retainedFrom,
  });
  let numJobs = 0;
  const job = (over: Partial<StepJob>): StepJob => {
    const numRows = grantRows[numJobs++] ?? null;
    return {
      type: 'step',
      pageSize: PAGE_SIZE,
      prefill: null,
      decode: null,
      drop: [],
      ...(numRows === null ? {} : { kvGrant: { numRows, capacity: GRANT_CAPACITY } }),
      ...over,
    };
  };
  const decode = (rows: string[], mayContinue = true) => ({
    rows: rows.map((seqId) => ({ seqId })),
    mayContinue,
  });
  const trace: Array<number | string | null> = [];
  const pages: CapturedPage[] = [];
  const kvBytes: Array<number | undefined> = [];
  const run = async (stepJob: StepJob) => {
    const reply = await executor.step(stepJob);
    executor.runAhead();
    kvBytes.push(reply.kvBytes);
    if (reply.prefill) trace.push(reply.prefill.pastSource, reply.prefill.sampled?.tokenId ?? null);
    for (const row of reply.decode?.rows ?? []) trace.push(`${row.seqId}:${row.tokenId}`);
    pages.push(...(reply.prefill?.pages ?? []), ...(reply.decode?.pages ?? []));
    return reply;
  };
  await run(job({ prefill: prefill('a', a!, [], null) }));
  await run(job({ prefill: prefill('b', b!, [], null), decode: decode(['a']) }));
  for (let i = 0; i < 4; i++) await run(job({ decode: decode(['a', 'b']) }));
  await run(job({ drop: ['a'], decode: decode(['b'], false) }));
  const pagesOfA = pages.filter((page) => page.seqId === 'a').slice(0, 2);
  // The next turn of `a` from its retained past, then a third sequence from the same pages copied.
  await run(job({ prefill: prefill('c', a!.slice(8), pagesOfA, 'a'), decode: decode(['b']) }));
  await run(job({ decode: decode(['c', 'b']) }));
  const fromPages = await run(
    job({ drop: ['c'], prefill: prefill('d', a!.slice(8), pagesOfA, null), decode: decode(['b'], false) }),
  );
  await run(job({ decode: decode(['b', 'd'], false) }));
  await run(job({ drop: ['b', 'd'] })); // fills the pages the last replies announced
  // After a restart: `a`'s pages seated as a remembered past in a job of its own, then its next turn.
  await run(job({ seat: { seqId: 'remembered-1', pages: pagesOfA.map((page) => page.data) } }));
  const fromSeat = await run(job({ prefill: prefill('e', a!.slice(8), pagesOfA, 'remembered-1') }));
  expect(fromSeat.prefill!.pastSource).toBe('retained');
  expect(fromSeat.prefill!.sampled!.tokenId).toBe(fromPages.prefill!.sampled!.tokenId);
  await run(job({ drop: ['e'] }));
  return {
    trace,
    kvBytes,
    pages: pages.map((page) => ({ seqId: page.seqId, pageIndex: page.pageIndex, data: bytesOf(page) })),
  };
}

function bytesOf(page: CapturedPage): number[] {
  return [...new Float32Array(page.data.buffer, page.data.byteOffset, page.data.byteLength / 4)];
}

/**
 * The same pages (sequence, index) holding the same K/V to float rounding: the bound path's
 * attention kernel sums in another order, and q4's int8-quantized activations carry a last-bit
 * difference on to later layers' K/V (within 1% of the page's scale).
 */
function expectSamePages(actual: ScriptPages, expected: ScriptPages): void {
  expect(actual.map(({ seqId, pageIndex }) => [seqId, pageIndex])).toEqual(
    expected.map(({ seqId, pageIndex }) => [seqId, pageIndex]),
  );
  actual.forEach((page, i) =>
    expect(maxAbsDifference(page.data, expected[i]!.data)).toBeLessThan(0.01 * maxAbs(expected[i]!.data)),
  );
}
type ScriptPages = Awaited<ReturnType<typeof script>>['pages'];

/** What one script run gave on each path, and the bound runner while it is still open. */
interface ExecutorComparison {
  model: CatalogueModel;
  runner: BoundRunner;
  expected: Awaited<ReturnType<typeof script>>;
  actual: Awaited<ReturnType<typeof script>>;
}

/**
 * Runs the script on the bundled q4 model through onnxruntime-node, then through a bound runner
 * that starts with room for one row of 16 tokens (the script grows it on the way, or lays it out
 * to `grantRows`); `check` runs before the bound runner is released.
 */
async function compareExecutors(
  grantRows: Array<number | null>,
  check: (comparison: ExecutorComparison) => void,
): Promise<void> {
  const catalogue = new ModelCatalogue(BUNDLED_MODELS_DIR, null, new RevisionCache(null));
  await catalogue.refresh();
  const model = catalogue.resolve(`${BUNDLED_MODEL_ID}:q4`);
  if (model instanceof Error) throw model;
  const now = () => performance.now();
  const { vocabSize } = model.folder.shape;
  const ortNode = await openRunner(model, OPTIONS);
  const expected = await script(new SlotExecutor(ortNode, now), vocabSize).finally(() => ortNode.release());
  const runner = await BoundRunner.open(model.graph.onnxPath, runnerSpecOf(model), OPTIONS, {
    maxRows: 1,
    capacity: 16,
    vocabSize,
  });
  try {
    check({
      model,
      runner,
      expected,
      actual: await script(new BoundSlotExecutor(runner, now), vocabSize, grantRows),
    });
  } finally {
    runner.release();
  }
}

describe.skipIf(!bound.isAvailable && !isRequired)('a slot on the bound run path', () => {
  it('samples the same tokens and captures the same pages as the onnxruntime-node executor', async () => {
    await compareExecutors([], ({ model, runner, actual, expected }) => {
      expect(actual.trace).toEqual(expected.trace);
      expect(actual.trace).toContain('retained');
      expect(actual.trace).toContain('pages');
      expectSamePages(actual.pages, expected.pages);
      expect([runner.kv.maxRows, runner.kv.capacity]).toEqual([2, 256]);
      // Every reply says the buffer's real bytes: after the growths, exactly what it allocates.
      const { numLayers, numKvHeads, headDim } = model.folder.shape;
      const allocated = runner.kv.tensors.reduce((sum, tensor) => sum + tensor.byteLength, 0);
      expect(allocated).toBe(
        numLayers * 2 * 2 * numKvHeads * 256 * headDim * runner.kv.tensors[0]!.BYTES_PER_ELEMENT,
      );
      expect(actual.kvBytes.at(-1)).toBe(allocated);
      expect(new Set(actual.kvBytes).size).toBeGreaterThan(1);
    });
  });

  it('lays its buffer out to each job’s grant, shrinking as sequences leave, with the same tokens and pages', async () => {
    await compareExecutors(GRANT_ROWS, ({ model, runner, actual, expected }) => {
      const { numLayers, numKvHeads, headDim } = model.folder.shape;
      const tokensOf = (trace: typeof actual.trace) =>
        trace.filter((entry) => entry !== 'retained' && entry !== 'pages');
      expect(tokensOf(actual.trace)).toEqual(tokensOf(expected.trace));
      expectSamePages(actual.pages, expected.pages);
      // Each reply's bytes are exactly the grant's: one row less once `a` left, never more.
      const rowBytes =
        numLayers * 2 * numKvHeads * GRANT_CAPACITY * headDim * runner.kv.tensors[0]!.BYTES_PER_ELEMENT;
      // Jobs without a grant (drops, a remembered seat) leave the buffer as they find it or grow
      // it: the seat's pages plus the next token fit the 32-token rows, so it stays as it was
      // (sized as the next turn's grant will be); that grant takes it back to one row.
      const seatBytes = 2 * rowBytes;
      expect(actual.kvBytes).toEqual([
        ...GRANT_ROWS.slice(0, 12).map((numRows) => (numRows ?? 2) * rowBytes),
        seatBytes,
        rowBytes,
        rowBytes,
      ]);
    });
  });
});
