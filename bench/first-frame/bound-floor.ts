import { runnerSpecOf } from '../../src-main/runtime/slot-worker/open-runner';
import { BoundRunner } from '../../src-main/runtime/slot-worker/ort-binding/bound-runner';
import type { RunnerOptions } from '../../src-main/runtime/slot-worker/session-options';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import { argmax } from '../../src-main/runtime/sampling/sampler';

/**
 * The floor of a slot on the bound run path: a bare BoundRunner (K/V written in place) on the
 * same graph with the slots' threads, one row sized for the whole run up front (no growth), no
 * engine, no worker, no scheduler. Same methods as Floor, so a bench compares like with like.
 */
export class BoundFloor {
  private constructor(private readonly runner: BoundRunner) {}

  /** Opens on `model`'s graph with room for `maxTokens` tokens of past plus new. */
  static async open(model: CatalogueModel, threads: RunnerOptions, maxTokens: number): Promise<BoundFloor> {
    const size = { maxRows: 1, capacity: maxTokens, vocabSize: model.folder.shape.vocabSize };
    // Run on this thread, as a slot's worker runs its own: the floor is the barest loop there is.
    const runner = await BoundRunner.open(model.graph.onnxPath, runnerSpecOf(model), threads, size, 'caller');
    const floor = new BoundFloor(runner);
    await floor.prefillMs([1, 2, 3], null);
    return floor;
  }

  /** ms of one forward over `ids` from an empty past (the only past a bound floor starts from). */
  async prefillMs(ids: readonly number[], past: null): Promise<number> {
    void past;
    this.runner.kv.clear(0);
    const startMs = performance.now();
    await this.runner.forward({ first: 0, count: 1 }, BigInt64Array.from(ids, BigInt), ids.length);
    return performance.now() - startMs;
  }

  /** ms of each step of a plain greedy decode loop after prefilling `promptIds`, K/V in place. */
  async decodeStepsMs(promptIds: readonly number[], numSteps: number): Promise<number[]> {
    const row = { first: 0, count: 1 };
    this.runner.kv.clear(0);
    let result = await this.runner.forward(row, BigInt64Array.from(promptIds, BigInt), promptIds.length);
    let tokenId = argmax(result.logits.subarray((result.numPositions - 1) * result.vocabSize));
    const stepsMs: number[] = [];
    for (let step = 0; step < numSteps; step++) {
      const startMs = performance.now();
      result = await this.runner.forward(row, BigInt64Array.of(BigInt(tokenId)), 1);
      tokenId = argmax(result.logits.subarray(0, result.vocabSize));
      stepsMs.push(performance.now() - startMs);
    }
    return stepsMs;
  }

  close(): Promise<void> {
    this.runner.release();
    return Promise.resolve();
  }
}
