import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../bench/load';
import { SeedRecordSchema } from '../../../src-main/telemetry/trace/seed-record';
import { readTraceSidecar } from '../../../src-main/telemetry/trace/sidecar';
import { runCaptured } from '../../support/cli';
import { TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';
import type { ScriptedServer } from '../runtime/remote/scripted-server';
import { modelsScript, sseEvents, startScripted, writeSlowly } from '../runtime/remote/scripted-server';

const fixture = readFileSync(
  new URL('../runtime/remote/fixtures/llama-cpp-stream.txt', import.meta.url),
  'utf8',
);
const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-lab-llama-'));
let server: ScriptedServer;
let numChats = 0;

/**
 * One lab run against `url`: sync, no warmup, single-turn, not stored, JSON out, the records
 * written to `traceFile`.
 */
function labSync(url: string, numRequests: number, traceFile: string) {
  const model = path.join(TEST_MODELS_DIR, TEST_MODEL_ID);
  const argv = ['--model', model, '--url', url, '--profile', 'sync', '--requests', String(numRequests)];
  argv.push('--warmup', '0', '--multi-turn-share', '0', '--no-store', '--json', '--trace-out', traceFile);
  return runCaptured(run, argv);
}

/** The records a run wrote, each parsed by seed 003's schema. */
function recordsOf(traceFile: string) {
  return readFileSync(traceFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => SeedRecordSchema.parse(JSON.parse(l)));
}

/** The sidecar a run wrote beside its records (throws with what was read when there is none). */
function sidecarOf(traceFile: string) {
  const side = readTraceSidecar(traceFile);
  if (!side || !('sidecar' in side)) throw new Error(JSON.stringify(side));
  return side.sidecar;
}

/**
 * A llama.cpp server as documented (its `/v1/models` owner, its stream with `timings`) that
 * misbehaves on two answers: the 2nd stops mid-answer, the 4th sends an event that is not JSON.
 */
beforeAll(async () => {
  server = await startScripted({
    '/v1/models': modelsScript(['qwen2.5-0.5b'], 'llamacpp'),
    '/v1/chat/completions': async (_req, res) => {
      const n = ++numChats;
      const events = sseEvents(fixture);
      // Longer than the fixture's prompt_ms, as a real server takes: its span then fits the client's wait.
      await new Promise((resolve) => setTimeout(resolve, 60));
      if (n === 2) {
        await writeSlowly(res, events.slice(0, 3), 'text/event-stream');
        return res.destroy();
      }
      if (n === 4) {
        await writeSlowly(res, [...events.slice(0, 2), 'data: {"choices": [\n\n'], 'text/event-stream');
        return res.end();
      }
      await writeSlowly(res, events, 'text/event-stream');
      res.end();
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the load lab against a llama.cpp server that misbehaves on some answers', () => {
  it('fails those answers alone, writes the others as records with the unreported phases collapsed', async () => {
    const traceFile = path.join(dir, 'llama.jsonl');
    const { code, out, err } = await labSync(server.baseUrl, 5, traceFile);
    expect(code, err.join('\n')).toBe(0);
    const report = JSON.parse(out.join('\n')) as {
      model: { id: string };
      phases: { summary: { numOk: number; numErrors: number } }[];
    };
    expect(report.model.id).toBe('qwen2.5-0.5b');
    expect(report.phases[0]!.summary).toMatchObject({ numOk: 3, numErrors: 2 });
    // llama.cpp takes ignore_eos; the lab's run id is not sent (the run is filed here, not there).
    const sent = JSON.parse(server.requests.find((r) => r.path === '/v1/chat/completions')!.body) as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({ model: 'qwen2.5-0.5b', ignore_eos: true, stream: true });
    expect(sent['first_frame']).toBeUndefined();

    const records = recordsOf(traceFile);
    expect(records).toHaveLength(3);
    for (const r of records) {
      // prompt_ms is the only server stamp llama.cpp gives: gateway and queue have zero width.
      expect(r.queue_enter_ms).toBe(r.gateway_arrival_ms);
      expect(r.prefill_start_ms).toBe(r.queue_enter_ms);
      expect(r.prefill_end_ms - r.prefill_start_ms).toBeCloseTo(41.237, 3);
    }
    const sidecar = sidecarOf(traceFile);
    expect(sidecar).toMatchObject({
      engine: 'llama.cpp',
      report_sources: { 'llama.cpp-timings': 3 },
      collapsed_phases: { gateway: 3, queue: 3, first_decode: 3 },
      num_left_out: 2,
    });
    const reasons = sidecar.left_out.map((l) => l.reason).join('\n');
    expect(reasons).toMatch(/did not finish \(error: the connection broke mid-answer/);
    expect(reasons).toMatch(/did not finish \(error: a stream event that is not JSON/);
  });
});

describe('the load lab against Ollama: chats through its native API, where it reports its durations', () => {
  const ollamaFixture = readFileSync(
    new URL('../runtime/remote/fixtures/ollama-chat-stream.ndjson', import.meta.url),
    'utf8',
  );
  let ollama: ScriptedServer;
  beforeAll(async () => {
    ollama = await startScripted({
      '/v1/models': modelsScript(['llama3.2:latest'], 'library'),
      '/api/chat': async (_req, res) => {
        // Longer than the fixture's load + prompt evaluation (355 ms), as the real server takes.
        await new Promise((resolve) => setTimeout(resolve, 380));
        const lines = ollamaFixture
          .split('\n')
          .filter((l) => l)
          .map((l) => `${l}\n`);
        await writeSlowly(res, lines, 'application/x-ndjson');
        res.end();
      },
    });
  });
  afterAll(() => ollama.close());

  it('maps load_duration and prompt_eval_duration into the records; queue and first decode collapse', async () => {
    const traceFile = path.join(dir, 'ollama.jsonl');
    const { code, err } = await labSync(ollama.baseUrl, 2, traceFile);
    expect(code, err.join('\n')).toBe(0);
    const chat = ollama.requests.find((r) => r.path === '/api/chat')!;
    expect(JSON.parse(chat.body)).toMatchObject({
      model: 'llama3.2:latest',
      stream: true,
      options: { temperature: 0 },
    });
    expect(ollama.requests.some((r) => r.path === '/v1/chat/completions')).toBe(false);
    const records = recordsOf(traceFile);
    expect(records).toHaveLength(2);
    for (const r of records) {
      expect(r).toMatchObject({ prompt_tokens: 26, output_tokens: 4 });
      expect(r.queue_enter_ms - r.gateway_arrival_ms).toBeCloseTo(12.525, 3);
      expect(r.prefill_start_ms).toBe(r.queue_enter_ms);
      expect(r.prefill_end_ms - r.prefill_start_ms).toBeCloseTo(342.546, 3);
      expect(r.first_token_server_ms).toBe(r.prefill_end_ms);
    }
    const sidecar = sidecarOf(traceFile);
    expect(sidecar).toMatchObject({
      engine: 'ollama',
      report_sources: { 'ollama-durations': 2 },
      collapsed_phases: { queue: 2, first_decode: 2 },
    });
  });
});

describe('the load lab against vLLM: /metrics scraped before and after the phase', () => {
  const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
  const metricsFixture = (name: string) =>
    readFileSync(new URL(`../runtime/remote/fixtures/${name}`, import.meta.url), 'utf8');
  // vLLM's stream carries usage but no timings: strip llama.cpp's from the same OpenAI stream.
  const stream = fixture.replace(/,"timings":\{[^}]*\}/, '');
  let vllm: ScriptedServer;
  let numScrapes = 0;
  beforeAll(async () => {
    vllm = await startScripted({
      '/v1/models': modelsScript([MODEL], 'vllm'),
      '/metrics': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
        res.end(metricsFixture(++numScrapes === 1 ? 'vllm-metrics-before.txt' : 'vllm-metrics-after.txt'));
      },
      '/v1/chat/completions': async (_req, res) => {
        await writeSlowly(res, sseEvents(stream), 'text/event-stream');
        res.end();
      },
    });
  });
  afterAll(() => vllm.close());

  it('reports the run-level server phases beside the client’s, in the JSON and the sidecar; every server phase collapses in the records', async () => {
    const traceFile = path.join(dir, 'vllm.jsonl');
    const { code, out, err } = await labSync(vllm.baseUrl, 2, traceFile);
    expect(code, err.join('\n')).toBe(0);
    expect(numScrapes).toBe(2);
    type Phases = { phases: { phase: string; numRequests: number; meanMs: number }[]; note: string };
    const report = JSON.parse(out.join('\n')) as { phases: { serverPhases: Phases }[] };
    const server = report.phases[0]!.serverPhases;
    expect(server.phases.map((p) => [p.phase, p.numRequests])).toEqual([
      ['queue', 10],
      ['prefill', 10],
      ['decode', 10],
      ['ttft', 10],
    ]);
    expect(server.phases[3]!.meanMs).toBeCloseTo(75, 9);
    expect(server.note).toMatch(/any other client/);
    const sidecar = sidecarOf(traceFile);
    expect(sidecar).toMatchObject({
      engine: 'vllm',
      report_sources: { none: 2 },
      collapsed_phases: { gateway: 2, queue: 2, prefill: 2, first_decode: 2 },
      server_phases: [{ server_phases: { source: 'vllm-metrics' } }],
    });
  });
});
