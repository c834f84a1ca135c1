import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readServerReport } from '../../../../src-main/runtime/remote/engines';
import { emptyObservation } from '../../../../src-main/runtime/remote/observation';
import { applyOllamaEvent, applyOpenAiEvent } from '../../../../src-main/runtime/remote/protocol-events';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** Feeds a fixture's events through the protocol reader, as the stream client does. */
function observe(protocol: 'openai' | 'ollama', events: readonly string[]) {
  const seen = emptyObservation(0);
  for (const e of events) (protocol === 'openai' ? applyOpenAiEvent : applyOllamaEvent)(seen, e);
  return seen;
}
const sseData = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6));

describe('engine timing mappers', () => {
  it('llama.cpp: prompt_ms is prefill, predicted_ms decode, cache_n + prompt_n the prompt; nothing else is claimed', () => {
    const report = readServerReport(observe('openai', sseData(fixture('llama-cpp-stream.txt'))));
    expect(report.source).toBe('llama.cpp-timings');
    expect(report.parts).toEqual({ prefill: 41.237 });
    expect(report.ttftMs).toBeNull();
    expect(report.decodeMs).toBe(38.912);
    expect(report).toMatchObject({ numPromptTokens: 24, numCachedTokens: 16, numOutputTokens: 3 });
  });

  it('Ollama native: load_duration is slot load, prompt_eval_duration prefill, eval_duration decode (ns → ms)', () => {
    const lines = fixture('ollama-chat-stream.ndjson')
      .split('\n')
      .filter((l) => l);
    const report = readServerReport(observe('ollama', lines));
    expect(report.source).toBe('ollama-durations');
    expect(report.parts.slotLoad).toBeCloseTo(12.524833, 9);
    expect(report.parts.prefill).toBeCloseTo(342.546, 9);
    expect(report.decodeMs).toBeCloseTo(84.21, 9);
    expect(report.ttftMs).toBeNull();
    expect(report).toMatchObject({ numPromptTokens: 26, numOutputTokens: 4 });
  });

  it('vLLM per-request metrics: queue and scheduled → first token; usage gives the counts', () => {
    const report = readServerReport(observe('openai', [fixture('vllm-request-metrics.json').trim()]));
    expect(report.source).toBe('vllm-request-metrics');
    expect(report.parts).toEqual({ queue: 12.3, prefill: 85.2 });
    expect(report.decodeMs).toBe(1240.5);
    expect(report).toMatchObject({ numPromptTokens: 42, numOutputTokens: 128, numCachedTokens: null });
  });

  it('First Frame: every part, its TTFT and unattributed time as sent', () => {
    const timings = {
      ttft_ms: 10,
      inbox_ms: 0.5,
      route_ms: 0.25,
      slot_load_ms: 0,
      queue_ms: 1,
      requeue_ms: 0,
      lost_prefill_ms: 0,
      activation_ms: 0.25,
      context_lookup_ms: 0.5,
      prefill_ms: 7,
      emit_ms: 0.25,
      unattributed_ms: 0.25,
      decode_ms: 30,
      cache_n: 16,
      prompt_n: 8,
      predicted_n: 4,
    };
    const report = readServerReport(
      observe('openai', [JSON.stringify({ id: 'chatcmpl-1', choices: [], timings })]),
    );
    expect(report.source).toBe('first-frame-timings');
    expect(report.ttftMs).toBe(10);
    expect(report.unattributedMs).toBe(0.25);
    expect(Object.values(report.parts).reduce((a, b) => a + b, 0) + report.unattributedMs!).toBe(10);
    expect(report).toMatchObject({ numPromptTokens: 24, numCachedTokens: 16, numOutputTokens: 4 });
  });

  it('a server that reports nothing gives an empty report with usage counts only', () => {
    const report = readServerReport(
      observe('openai', [
        JSON.stringify({ choices: [{ delta: { content: 'x' } }] }),
        JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 1 } }),
      ]),
    );
    expect(report.source).toBe('none');
    expect(report.parts).toEqual({});
    expect(report).toMatchObject({ numPromptTokens: 5, numOutputTokens: 1 });
  });
});
