import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import { plainOrtError } from '../../../../src-main/runtime/slot-worker/ort-error';
import { BUNDLED_MODEL_ID, BUNDLED_MODEL_REF } from '../../../support/models';
import { submitAndTally } from '../../../support/outcome-tally';
import { scriptedRequest, scriptedRuntime, SCRIPTED_TIMES } from '../../../support/scripted-runtime';

/** What ONNX Runtime said when a context length of 2^53−1 reached the rotary tables. */
const RANGE_FAILURE =
  "Non-zero status code returned while running Range node. Name:'/model/rotary/Range' Status Message: " +
  '/onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:360 void* onnxruntime::BFCArena::AllocateRawInternal' +
  '(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) Failed to allocate memory for requested buffer of size 36028797018963964';
const PLAIN_RANGE_FAILURE =
  'ONNX Runtime could not allocate the memory the model asked for (its Range step): the model needs more than this computer can give, or its files claim sizes it cannot hold (details in the log)';

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

describe("ONNX Runtime's internal error text", () => {
  it('becomes a plain sentence; other text passes unchanged', () => {
    expect(plainOrtError(RANGE_FAILURE)).toBe(PLAIN_RANGE_FAILURE);
    expect(
      plainOrtError('[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from x.onnx failed'),
    ).toMatch(/^ONNX Runtime could not read the model's graph/);
    expect(plainOrtError('the model produced NaN scores: its weights are broken')).toBe(
      'the model produced NaN scores: its weights are broken',
    );
  });

  it('never reaches a request: a failed step and a failed load say the sentence, the log keeps the raw text', async () => {
    const logged: string[] = [];
    const log = { warn: (_topic: string, message: string) => void logged.push(message) };
    let isLoadFailing = true;
    const built = await scriptedRuntime({ log }, SCRIPTED_TIMES, (runner) => {
      if (isLoadFailing) runner.loadError = new Error(RANGE_FAILURE);
    });
    runtime = built.runtime;
    const failedLoad = await submitAndTally(runtime, scriptedRequest()).done;
    expect(failedLoad.errorMessage).toBe(`model ${BUNDLED_MODEL_REF} failed to load: ${PLAIN_RANGE_FAILURE}`);

    isLoadFailing = false;
    await runtime.prefetch(BUNDLED_MODEL_ID);
    const runner = built.runners.at(-1)!;
    runner.holdNextStepAt('prefill');
    const heard = submitAndTally(runtime, scriptedRequest());
    await runner.whenHeld();
    runner.failHeld(new Error(RANGE_FAILURE));
    expect((await heard.done).errorMessage).toBe(`step failed: ${PLAIN_RANGE_FAILURE}`);
    expect(logged.filter((line) => line.includes('bfc_arena.cc:360'))).toHaveLength(2);
  });
});
