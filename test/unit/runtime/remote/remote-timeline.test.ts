import { describe, expect, it } from 'vitest';
import { emptyReport } from '../../../../src-main/runtime/remote/engines';
import type { ServerReport } from '../../../../src-main/runtime/remote/engines';
import { emptyObservation } from '../../../../src-main/runtime/remote/observation';
import type { RemoteObservation } from '../../../../src-main/runtime/remote/observation';
import { planRemoteCall } from '../../../../src-main/runtime/remote/request-body';
import type { RemoteRequestMeta } from '../../../../src-main/runtime/remote/remote-timeline';
import { remoteTimeline } from '../../../../src-main/runtime/remote/remote-timeline';

const META: RemoteRequestMeta = {
  requestId: 'r1',
  runId: null,
  conversationId: null,
  modelRef: '@box/llama',
  endpointId: 'box',
  endpointName: 'Box',
  baseUrl: 'http://box:8080/v1',
  engine: 'llama.cpp',
  serverModelId: 'llama',
  wallAtSend: 1_700_000_000_000,
};

/** A streamed answer: sent at 1000, first content at 1100, three more events 10 ms apart. */
function answered(): RemoteObservation {
  const seen = emptyObservation(1000);
  Object.assign(seen.stamps, { headersAt: 1090, firstByteAt: 1095, firstContentAt: 1100, lastChunkAt: 1131 });
  seen.stamps.endedAt = 1132;
  seen.contentAts = [1100, 1110, 1120, 1130];
  seen.text = 'abcd';
  seen.finishReason = 'stop';
  seen.usage = { promptTokens: 24, completionTokens: 4, cachedTokens: null };
  return seen;
}
const llamaReport = (prefillMs: number): ServerReport => ({
  ...emptyReport(),
  source: 'llama.cpp-timings',
  parts: { prefill: prefillMs },
  decodeMs: 30,
  numPromptTokens: 24,
  numCachedTokens: 16,
  numOutputTokens: 4,
});

describe('remote timelines', () => {
  it('the client boundary: parts the server reported, the rest of client TTFT unattributed', () => {
    const t = remoteTimeline(META, answered(), llamaReport(40));
    expect(t).toMatchObject({
      arrivedAt: 1000,
      firstTokenAt: 1100,
      ttftMs: 100,
      clientTtftMs: 100,
      e2eMs: 132,
    });
    expect(t.parts.prefill).toBe(40);
    expect(t.parts.queue).toBe(0);
    expect(t.unattributedMs).toBe(60);
    expect(t.itlMs).toEqual([10, 10, 10]);
    expect(t.numCachedTokens).toBe(16);
    expect(t.remote).toMatchObject({
      reportedParts: ['prefill'],
      placedArrivalMs: 30, // window send → min(headers 1090, first content − 40 = 1060): 60 ms
      placementUncertaintyMs: 30,
      placementProblem: null,
      headersMs: 90,
      firstContentMs: 100,
    });
    expect(t.transitions).toEqual([
      { state: 'prefill', at: 1030 },
      { state: 'decode', at: 1100 },
    ]);
    // Finished and checked: it never changes (a later figure is a record of its own).
    expect(() => Object.assign(t.remote!, { placementProblem: 'later' })).toThrow(TypeError);
    expect(() => Object.assign(t, { clientTtftMs: 1 })).toThrow(TypeError);
  });

  it('a server span longer than the client waited is flagged and its parts left out (never forced)', () => {
    const t = remoteTimeline(META, answered(), llamaReport(150));
    expect(t.parts.prefill).toBe(0);
    expect(t.unattributedMs).toBe(100);
    expect(t.remote!.placementProblem).toMatch(/cannot be placed in order/);
    expect(t.remote!.placedArrivalMs).toBeNull();
  });

  it('a failure before any content keeps the message; 429 is a rejection', () => {
    const seen = emptyObservation(1000);
    seen.stamps.endedAt = 1005;
    seen.httpStatus = 429;
    seen.failure = { kind: 'http', message: 'HTTP 429: the endpoint is rate limiting' };
    const t = remoteTimeline(META, seen, emptyReport());
    expect(t).toMatchObject({
      finishReason: 'rejected',
      ttftMs: null,
      unattributedMs: 5,
      numOutputTokens: 0,
    });
    expect(t.errorMessage).toBe('HTTP 429: the endpoint is rate limiting');
  });
});

describe('remote request bodies', () => {
  const request = {
    requestId: 'r',
    prompt: { kind: 'chat' as const, messages: [{ role: 'user' as const, content: 'hi' }] },
    temperature: 0,
    topK: 40,
    maxTokens: 8,
  };

  it('Ollama chats go to its native API with options (the only API reporting its durations)', () => {
    expect(planRemoteCall('http://o:11434/v1', 'ollama', 'llama3.2', request)).toEqual({
      url: 'http://o:11434/api/chat',
      protocol: 'ollama',
      body: {
        model: 'llama3.2',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        options: { temperature: 0, top_k: 40, num_predict: 8 },
      },
    });
  });

  it('a plain OpenAI server gets no top_k; llama.cpp, vLLM and First Frame do', () => {
    const plain = planRemoteCall('https://api.example.com/v1', 'openai', 'gpt', request).body;
    expect(plain).not.toHaveProperty('top_k');
    expect(plain).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 8 });
    expect(planRemoteCall('http://v:8000/v1', 'vllm', 'm', request).body).toHaveProperty('top_k', 40);
  });
});
