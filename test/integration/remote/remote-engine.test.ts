import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGeneration } from '../../../src-main/runtime/collect';
import type { GenerationRequest } from '../../../src-main/runtime/scheduler/request';
import { remoteRef } from '../../../src-main/runtime/remote/endpoints';
import { RemoteEngine } from '../../../src-main/runtime/remote/remote-engine';
import { systemClock } from '../../../src-main/telemetry/clock';
import { checkTimeline } from '../../../src-main/telemetry/timeline/check';
import { TTFT_PARTS } from '../../../src-main/telemetry/timeline/parts';
import { TEST_MODEL_ID, TEST_MODEL_REF } from '../../support/runtime';
import { expectNothingHeld } from '../../support/runtime';
import type { SecondHost } from './second-host';
import { startSecondHost } from './second-host';

let second: SecondHost;
let engine: RemoteEngine;
let counter = 0;
beforeAll(async () => {
  second = await startSecondHost();
  engine = new RemoteEngine(second.endpoints, systemClock);
});
afterAll(() => second.close());

/** Runs a request through the remote engine as a runtime's caller would. */
function ask(modelId: string, over: Partial<GenerationRequest> = {}) {
  const request: GenerationRequest = {
    requestId: `remote-${++counter}`,
    modelId,
    prompt: { kind: 'chat', messages: [{ role: 'user', content: 'Good morning!' }] },
    temperature: 0,
    maxTokens: 6,
    ...over,
  };
  return collectGeneration(engine, request);
}

describe('a second First Frame host as the remote engine (real HTTP, real streaming)', () => {
  it('lists the second host’s models as remote slots', () => {
    expect(second.endpoint.reachability).toBe('reachable');
    expect(second.endpoint.resolvedEngine).toBe('first-frame');
    // The second host lists each variant as name:variant; a bare name asks for its default.
    expect(second.endpoint.models.map((m) => m.modelId)).toContain(TEST_MODEL_REF);
  });

  it('streams an answer whose timeline nests the server’s own parts inside the client boundary', async () => {
    const result = await ask(remoteRef('second-host', TEST_MODEL_ID));
    expect(result.errorMessage).toBeNull();
    expect(result.chunks.length).toBeGreaterThan(0);
    const t = result.timeline;
    checkTimeline(t);
    const facts = t.remote!;
    expect(facts).toMatchObject({
      endpointId: 'second-host',
      engine: 'first-frame',
      reportSource: 'first-frame-timings',
      serverModelId: TEST_MODEL_ID,
      hasUsage: true,
      placementProblem: null,
    });
    // The server's timeline of the same request (its id is the response id).
    const serverTimeline = await second.host.timelineOf(facts.serverRequestId!);
    expect(facts.serverTtftMs).toBeCloseTo(serverTimeline.ttftMs!, 2);
    for (const part of TTFT_PARTS) expect(t.parts[part]).toBeCloseTo(serverTimeline.parts[part], 2);
    // The client's TTFT (this process's stamps) covers the server's own (the server's stamps);
    // what the server did not explain stays unattributed.
    expect(t.ttftMs!).toBeGreaterThanOrEqual(facts.serverTtftMs!);
    expect(t.unattributedMs).toBeGreaterThanOrEqual(0);
    expect(t.numOutputTokens).toBe(6);
    expect(t.finishReason).toBe('length');
    // Stamps near 1.7e12 ms carry about 0.25 µs of float resolution: compare within 1 µs.
    expect(facts.placedArrivalMs! - facts.placementUncertaintyMs!).toBeGreaterThanOrEqual(-1e-3);
    expect(facts.placedArrivalMs! + facts.placementUncertaintyMs!).toBeLessThanOrEqual(
      facts.firstContentMs! - facts.serverTtftMs! + 1e-3,
    );
    const stamps = [facts.headersMs!, facts.firstByteMs!, facts.firstContentMs!, facts.lastChunkMs!];
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
    console.log(
      `remote TTFT ${t.ttftMs!.toFixed(3)} ms = server ${facts.serverTtftMs!.toFixed(3)} ms + unattributed ${(t.ttftMs! - facts.serverTtftMs!).toFixed(3)} ms; placement ±${facts.placementUncertaintyMs!.toFixed(3)} ms`,
    );
  });

  it('an unknown model gives a 404 on that answer, and the next answer still works', async () => {
    const failed = await ask(remoteRef('second-host', 'no-such-model'));
    expect(failed.timeline.finishReason).toBe('error');
    expect(failed.errorMessage).toMatch(/^Second host: HTTP 404: not found/);
    expect(second.endpoints.get('second-host')!.lastError).toMatch(/HTTP 404/);
    const ok = await ask(remoteRef('second-host', TEST_MODEL_ID));
    expect(ok.errorMessage).toBeNull();
    expectNothingHeld(second.host.runtime);
  });

  it('an unknown endpoint is refused before anything is sent', async () => {
    const refused = await ask(remoteRef('nowhere', TEST_MODEL_ID));
    expect(refused.timeline.finishReason).toBe('rejected');
    expect(refused.errorMessage).toMatch(/no endpoint "nowhere"/);
  });

  it('cancelling mid-answer stops the stream and the server frees the request', async () => {
    const requestId = `remote-${++counter}`;
    const done = collectGeneration(
      engine,
      {
        requestId,
        modelId: remoteRef('second-host', TEST_MODEL_ID),
        prompt: { kind: 'chat', messages: [{ role: 'user', content: 'Tell me a long story.' }] },
        maxTokens: 200,
        ignoreEos: true,
        temperature: 0,
      },
      () => engine.cancel(requestId),
    );
    const result = await done;
    expect(result.timeline.finishReason).toBe('cancelled');
    await expect.poll(() => second.host.runtime.queueSummary().numRunning, { timeout: 20_000 }).toBe(0);
  });
});
