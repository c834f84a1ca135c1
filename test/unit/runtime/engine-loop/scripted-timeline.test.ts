import { afterEach, describe, expect, it } from 'vitest';
import { collectGeneration } from '../../../../src-main/runtime/collect';
import type { RuntimeOptions } from '../../../../src-main/runtime/runtime-options';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import { checkTimeline } from '../../../../src-main/telemetry/timeline/check';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { SCRIPTED_TIMES as TIMES, scriptedRequest as request } from '../../../support/scripted-runtime';
import * as scripted from '../../../support/scripted-runtime';

// The scheduler and engine loop with a scripted runner on a hand-moved clock: no worker, no
// ONNX Runtime, so every part of every timeline has one exact expected value.

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

async function scriptedRuntime(overrides: Partial<RuntimeOptions> = {}) {
  const built = await scripted.scriptedRuntime(overrides);
  runtime = built.runtime;
  return built;
}

describe('timeline parts of a scripted request', () => {
  it('on a cold slot: the load is slotLoad, the worker stamps split lookup, prefill and emit exactly', async () => {
    const { runtime } = await scriptedRuntime();
    const result = await collectGeneration(runtime, request());
    const t = checkTimeline(result.timeline);
    expect(t.finishReason).toBe('length');
    expect(t.parts).toEqual({
      inbox: 0,
      route: 0,
      slotLoad: TIMES.loadMs,
      queue: 0,
      requeue: 0,
      lostPrefill: 0,
      activation: 0,
      contextLookup: TIMES.lookupMs,
      prefill: TIMES.prefillMs,
      emit: TIMES.replyMs,
    });
    // The worker took the job, then copied pages and dropped K/V before starting the chunk:
    // that time is in no part, so it is exactly the unattributed time.
    expect(t.unattributedMs).toBe(TIMES.copyMs);
    expect(t.ttftMs).toBe(TIMES.loadMs + TIMES.copyMs + TIMES.lookupMs + TIMES.prefillMs + TIMES.replyMs);
    const stepMs = TIMES.copyMs + TIMES.decodeMs + TIMES.replyMs;
    expect(t.itlMs).toEqual([stepMs, stepMs]);
  });

  it('on a warm slot: no slotLoad, and a request behind a busy seat waits exactly its neighbour out in queue', async () => {
    const { runtime } = await scriptedRuntime({ maxSeats: 1 });
    await runtime.prefetch(BUNDLED_MODEL_ID);
    const [first, second] = await Promise.all([
      collectGeneration(runtime, request()),
      collectGeneration(runtime, request()),
    ]);
    const a = checkTimeline(first!.timeline);
    const b = checkTimeline(second!.timeline);
    expect(a.parts.slotLoad).toBe(0);
    expect(a.isColdSlot).toBe(false);
    expect(b.parts.queue).toBe(a.e2eMs);
    expect(b.ttftMs).toBe(a.e2eMs + a.ttftMs!);
    expect(b.unattributedMs).toBe(TIMES.copyMs);
  });
});
