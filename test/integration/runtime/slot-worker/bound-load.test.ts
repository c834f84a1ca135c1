import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedGraphPath } from '../../../../src-main/runtime/slot-worker/graph-cache';
import { KvBatch } from '../../../../src-main/runtime/slot-worker/kv-batch';
import { loadSlot } from '../../../../src-main/runtime/slot-worker/load-slot';
import { lastLogits } from '../../../../src-main/runtime/slot-worker/model-runner';
import { loadSlotRun } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-load';
import type { SlotLoadSeams, SlotRun } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-load';
import { loadBoundOrt } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-library';
import { BoundRunner } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-runner';
import { writeVerdict } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-verdict';
import type { BoundVerdict } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-verdict';
import type { LoadJob } from '../../../../src-main/runtime/slot-worker/protocol';
import { releaseWeights } from '../../../../src-main/runtime/slot-worker/read-weights';
import { argmax } from '../../../../src-main/runtime/sampling/sampler';
import { bundledQ4LoadJob } from '../../../support/bundled-load-job';

const NUM_TOKENS = 4;
const PROMPT = [1, 49, 337, 345];
const root = mkdtempSync(path.join(tmpdir(), 'ff-bound-load-'));
const bound = loadBoundOrt();
const isRequired = process.env['FF_REQUIRE_NATIVE'] === '1';

/** The worker's load job for the bundled q4 model (already fused: GroupQueryAttention). */
function jobOf(graphCacheDir: string | null): Promise<LoadJob> {
  return bundledQ4LoadJob({ graphCacheDir, modelRevision: 'test-bound-load-q4', isFusionOn: true });
}

/** The real session builders, counted. */
function countingSeams(): SlotLoadSeams & { numNode: number; numBound: number } {
  const seams = {
    numNode: 0,
    numBound: 0,
    loadSlot: (job: LoadJob) => {
      seams.numNode += 1;
      return loadSlot(job);
    },
    openBound: ((...args: Parameters<typeof BoundRunner.open>) => {
      seams.numBound += 1;
      return BoundRunner.open(...args);
    }) as typeof BoundRunner.open,
  };
  return seams;
}

/** Greedy ids of the first reference prompt on whichever runner the load kept; releases the slot. */
async function greedyIdsOf(run: SlotRun): Promise<number[]> {
  const ids: number[] = [];
  let input = PROMPT;
  let batch = run.runner ? KvBatch.empty(run.runner.geometry, ['seq']) : null;
  while (ids.length < NUM_TOKENS) {
    const tokens = BigInt64Array.from(input, BigInt);
    if (run.bound) {
      const result = await run.bound.forward({ first: 0, count: 1 }, tokens, input.length);
      ids.push(argmax(result.logits.subarray(0, result.vocabSize)));
    } else {
      const result = await run.runner!.forward(batch!, tokens, input.length);
      batch = batch!.advanced(result.kv, input.length);
      ids.push(argmax(lastLogits(result, 0)));
    }
    input = [ids.at(-1)!];
  }
  run.bound?.release();
  await run.runner?.release();
  releaseWeights(run.loaded.weights);
  return ids;
}

describe.skipIf(!bound.isAvailable && !isRequired)('a slot load, one session at a time', () => {
  let job: LoadJob;
  /** The bound path's greedy ids, which onnxruntime-node's must equal. */
  let boundIds: number[] = [];
  /** The verdict the first load recorded. */
  let recorded: BoundVerdict | null = null;
  beforeAll(async () => {
    job = await jobOf(path.join(root, 'cache'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('checks the bound path once against onnxruntime-node, then opens only the bound session', async () => {
    const first = countingSeams();
    const firstRun = await loadSlotRun(job, first);
    expect(firstRun.runPath).toEqual({ path: 'bound' });
    expect([first.numNode, first.numBound]).toEqual([1, 1]);
    // onnxruntime-node's host copy of the weights went with its session: nothing of ours is held.
    expect(firstRun.loaded.weights.buffers).toEqual([]);
    expect(firstRun.loaded.weights.info.hostBytes).toBe(0);
    const firstIds = await greedyIdsOf(firstRun);

    const entry = cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', false).dir;
    const verdicts = readdirSync(entry).filter((name) => name.startsWith('bound-'));
    expect(verdicts).toHaveLength(1);
    if (process.platform !== 'win32') expect(statSync(path.join(entry, verdicts[0]!)).mode & 0o077).toBe(0);

    const second = countingSeams();
    const secondRun = await loadSlotRun(job, second);
    expect(secondRun.runPath).toEqual({ path: 'bound' });
    expect(secondRun.loaded.graphCache.status).toBe('hit');
    expect([second.numNode, second.numBound]).toEqual([0, 1]);
    expect(await greedyIdsOf(secondRun)).toEqual(firstIds);
    boundIds = firstIds;
    recorded = JSON.parse(readFileSync(path.join(entry, verdicts[0]!), 'utf8')) as BoundVerdict;
  });

  it('keeps onnxruntime-node, with the recorded reason, for a graph recorded as a mismatch', async () => {
    const entry = cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', false).dir;
    const verdict = readdirSync(entry).find((name) => name.startsWith('bound-'))!;
    writeVerdict(path.join(entry, verdict), { path: 'ort-node', reason: 'recorded mismatch' });
    const seams = countingSeams();
    const run = await loadSlotRun(job, seams);
    expect(run.runPath).toEqual({ path: 'ort-node', reason: 'recorded mismatch' });
    expect([seams.numNode, seams.numBound]).toEqual([1, 0]);
    expect(await greedyIdsOf(run)).toEqual(boundIds);
  });

  it('records a bound session that differs from the reference, and runs on onnxruntime-node', async () => {
    const entry = cachedGraphPath(job.graphCacheDir!, job.modelRevision, 'cpu', false).dir;
    const verdict = path.join(
      entry,
      readdirSync(entry).find((name) => name.startsWith('bound-'))!,
    );
    if (recorded?.path !== 'bound') throw new Error('expected a bound verdict');
    const top = recorded.reference.top.map(([id, value]): [number, number] => [id, value + 1]);
    writeVerdict(verdict, { path: 'bound', reference: { ...recorded.reference, top } });
    const run = await loadSlotRun(job, countingSeams());
    expect(run.runPath.path).toBe('ort-node');
    expect(run.runPath).toMatchObject({ reason: expect.stringMatching(/differ from onnxruntime-node/) });
    await greedyIdsOf(run);
    expect(JSON.parse(readFileSync(verdict, 'utf8')).path).toBe('ort-node');
  });

  it('records the verdict in the cache folder for a graph the cache does not hold', async () => {
    const skipped = { ...job, graphCacheDir: path.join(root, 'skipped'), graphCacheSkip: 'not saved: test' };
    const first = countingSeams();
    const firstRun = await loadSlotRun(skipped, first);
    expect(firstRun.runPath).toEqual({ path: 'bound' });
    expect([first.numNode, first.numBound]).toEqual([1, 1]);
    // onnxruntime-node's host copy of the weights went with its session: nothing of ours is held.
    expect(firstRun.loaded.weights.buffers).toEqual([]);
    expect(firstRun.loaded.weights.info.hostBytes).toBe(0);
    await greedyIdsOf(firstRun);
    const second = countingSeams();
    const secondRun = await loadSlotRun(skipped, second);
    expect(secondRun.runPath).toEqual({ path: 'bound' });
    expect(secondRun.loaded.graphCache).toEqual({ status: 'off', reason: 'not saved: test' });
    expect([second.numNode, second.numBound]).toEqual([0, 1]);
    expect(await greedyIdsOf(secondRun)).toEqual(boundIds);
  });
});
