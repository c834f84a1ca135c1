import { KvBatch } from '../../src-main/runtime/slot-worker/kv-batch';
import type { ModelRunner, RunnerOptions } from '../../src-main/runtime/slot-worker/model-runner';
import { openRunner } from '../../src-main/runtime/slot-worker/open-runner';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import { argmax } from '../../src-main/runtime/sampling/sampler';

/**
 * The floor: bare `session.run` on this thread with the same model and the slots' threads (how
 * many, whether they spin), no engine, no worker, no scheduler. What the engine's numbers are
 * compared against.
 */
export class Floor {
  private constructor(private readonly runner: ModelRunner) {}

  /** `threads`: a runtime's slotSessionThreadsOf, so the floor runs as its slots do. */
  static async open(model: CatalogueModel, threads: RunnerOptions): Promise<Floor> {
    const runner = await openRunner(model, threads);
    const floor = new Floor(runner);
    await floor.prefillMs([1, 2, 3], null);
    return floor;
  }

  /** K/V after running `ids` from an empty past (to time a suffix on top of a cached prefix). */
  async pastOf(ids: readonly number[]): Promise<KvBatch> {
    const empty = KvBatch.empty(this.runner.geometry, ['floor']);
    const result = await this.runner.forward(empty, BigInt64Array.from(ids, BigInt), ids.length);
    return empty.advanced(result.kv, ids.length);
  }

  /** ms of one forward over `ids` on top of `past` (or an empty past). */
  async prefillMs(ids: readonly number[], past: KvBatch | null): Promise<number> {
    const batch = past ?? KvBatch.empty(this.runner.geometry, ['floor']);
    const startMs = performance.now();
    await this.runner.forward(batch, BigInt64Array.from(ids, BigInt), ids.length);
    return performance.now() - startMs;
  }

  /** Median ms per step of a plain greedy decode loop feeding present back as past. */
  async decodeStepsMs(promptIds: readonly number[], numSteps: number): Promise<number[]> {
    let batch = KvBatch.empty(this.runner.geometry, ['floor']);
    let result = await this.runner.forward(batch, BigInt64Array.from(promptIds, BigInt), promptIds.length);
    batch = batch.advanced(result.kv, promptIds.length);
    let tokenId = argmax(result.logits.subarray(result.logits.length - result.vocabSize));
    const stepsMs: number[] = [];
    for (let step = 0; step < numSteps; step++) {
      const startMs = performance.now();
      result = await this.runner.forward(batch, BigInt64Array.of(BigInt(tokenId)), 1);
      tokenId = argmax(result.logits);
      stepsMs.push(performance.now() - startMs);
      batch = batch.advanced(result.kv, 1);
    }
    return stepsMs;
  }

  /** ms to pick a greedy token from one row of logits (the raw sample). */
  sampleMs(vocabSize: number): number {
    const logits = Float32Array.from({ length: vocabSize }, (_, i) => Math.sin(i));
    const startMs = performance.now();
    for (let i = 0; i < 100; i++) argmax(logits);
    return (performance.now() - startMs) / 100;
  }

  close(): Promise<void> {
    return this.runner.release();
  }
}
