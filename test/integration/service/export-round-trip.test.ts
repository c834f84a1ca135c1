import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { collectGeneration } from '../../../src-main/runtime/collect';
import type { Runtime } from '../../../src-main/runtime/runtime';
import type { Core } from '../../../src-main/service/core-options';
import type { ExportRequest } from '../../../src-main/service/run-export';
import { createTestCore } from '../../support/core';
import { openSqliteHistory } from '../../../src-main/history/history';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { buildReport } from '../../../src-main/telemetry/report/build-report';
import { figuresOf } from '../../support/compare';
import { chat, createTestRuntime, generate, TEST_MODEL_ID } from '../../support/runtime';
import { traceProblems } from '../../unit/telemetry/trace/trace-event-format';

const PROMPTS = [
  'Once upon a time there was a girl who lived',
  'My dear Mr. Bennet, said his lady to him one day',
  'The morning was fine and the garden',
  'Emma Woodhouse, handsome, clever, and rich',
];

/**
 * One run's requests on the real bundled model: stop, length, cancelled, deadline and rejected
 * from an ample runtime, an error from a slot whose worker dies mid-answer, and preempted ones
 * from a runtime whose K/V budget holds 14 pages.
 */
async function realRun(runId: string): Promise<Timeline[]> {
  const ample = await createTestRuntime({ maxSeats: 2 });
  const out: Timeline[] = [];
  try {
    const ask = async (request: Parameters<typeof generate>[1]) =>
      out.push((await generate(ample, { runId, ...request })).timeline);
    await ask({ prompt: chat('Hello! How are you today?'), maxTokens: 200 });
    await ask({ prompt: chat('Hello there, how do you do?'), maxTokens: 5 });
    await ask({ prompt: chat('Tell me everything.'), maxTokens: 500, ignoreEos: true, deadlineMs: 30 });
    await ask({ prompt: chat('Hi'), modelId: 'no-such-model' });
    const cancelled = await collectGeneration(
      ample,
      {
        requestId: 'cancel-me',
        runId,
        modelId: TEST_MODEL_ID,
        prompt: chat('Write a long letter.'),
        maxTokens: 400,
        temperature: 0,
      },
      (chunk) => {
        if (chunk.tokenIds.length > 0) ample.cancel('cancel-me');
      },
    );
    out.push(cancelled.timeline);
    out.push(await answerCutByDeadWorker(ample, runId));
  } finally {
    await ample.close();
  }
  const tight = await tightRuntime();
  try {
    const results = await Promise.all(
      PROMPTS.map((text) =>
        generate(tight, {
          runId,
          prompt: { kind: 'text', text: `${text} ${text}` },
          maxTokens: 16,
          ignoreEos: true,
        }),
      ),
    );
    out.push(...results.map((r) => r.timeline));
  } finally {
    await tight.close();
  }
  return out;
}

/**
 * A request whose slot worker dies after its third chunk, the way a bug in the worker would (a
 * message it cannot read throws outside any handler): it ends with an `error` finish. The
 * runner's `worker` is private; reaching it is the point (as in dead-worker.test.ts).
 */
async function answerCutByDeadWorker(runtime: Runtime, runId: string): Promise<Timeline> {
  let numChunks = 0;
  const running = collectGeneration(
    runtime,
    {
      requestId: 'worker-dies',
      runId,
      modelId: TEST_MODEL_ID,
      prompt: chat('Write a long letter about the weather.'),
      maxTokens: 2_000,
      ignoreEos: true,
      temperature: 0,
    },
    () => numChunks++,
  );
  await vi.waitFor(() => expect(numChunks).toBeGreaterThan(2));
  const slot = runtime.slots().find((s) => s.runner !== null)!;
  (slot.runner as unknown as { worker: Worker }).worker.postMessage(null);
  return (await running).timeline;
}

async function tightRuntime(): Promise<Runtime> {
  const probe = await createTestRuntime({ isPaging: false });
  const entry = probe.catalogue.entryOf(TEST_MODEL_ID);
  await probe.close();
  if (entry?.status !== 'ok') throw new Error('test model did not load');
  const { numLayers, numKvHeads, headDim } = entry.model.folder.shape;
  const pageBytes = numLayers * 2 * numKvHeads * 4 * headDim * 4;
  return createTestRuntime({
    isPaging: true,
    pageSize: 4,
    maxSeats: 4,
    prefillChunkTokens: 4,
    // The bundled model runs the bound path, whose K/V buffer rows count besides the pages.
    kvBudgetBytes: pageBytes * 28,
  });
}

async function exportText(core: Core, request: ExportRequest): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  await core.openExport(request).write(out);
  return text;
}

describe('a run exported as JSONL and imported back, on the real bundled model', () => {
  let dataDir: string;
  let core: Core;
  let runId: string;
  let original: Timeline[];
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-export-'));
    const history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
    runId = history.runs.create({ name: 'every finish' }).runId;
    original = await realRun(runId);
    for (const t of original) history.writer.enqueue(t);
    history.writer.flush();
    history.close();
    core = await createTestCore(dataDir);
  }, 120_000);
  afterAll(async () => {
    await core?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds every finish reason the runtime gives and a request preempted before its first token', () => {
    expect(new Set(original.map((t) => t.finishReason))).toEqual(
      new Set(['stop', 'length', 'cancelled', 'deadline', 'rejected', 'error']),
    );
    const preempted = original.filter((t) => t.numPreemptions > 0);
    expect(preempted.length).toBeGreaterThan(0);
    expect(preempted.some((t) => t.parts.requeue > 0 && t.parts.lostPrefill > 0)).toBe(true);
  });

  it('imports with the same report, stored and compared, as the original run', async () => {
    const jsonl = await exportText(core, { format: 'jsonl', runId });
    const imported = await core.service.call('traces.import', {
      fileName: 'run.jsonl',
      text: jsonl,
      skipBadLines: false,
    });
    if (!imported.ok) throw new Error(imported.error.message);
    expect(imported.value).toMatchObject({
      numLines: original.length,
      numImported: original.length,
      rejected: [],
    });
    expect(imported.value.report).toEqual(buildReport(original));
    const importedRunId = imported.value.runId!;
    await vi.waitFor(async () => {
      const runs = await core.service.call('runs.list', {});
      expect(runs.ok && runs.value.find((r) => r.runId === importedRunId)?.numRequests).toBe(original.length);
    });
    const slo = { ttftMs: 1_000, itlMs: 80 };
    const compared = await core.service.call('runs.compare', { runIds: [runId, importedRunId], slo });
    if (!compared.ok) throw new Error(compared.error.message);
    expect(figuresOf(compared.value, importedRunId)).toEqual(figuresOf(compared.value, runId));
    const [before, after] = compared.value.histogram.series;
    expect(after!.counts).toEqual(before!.counts);
    expect(await exportText(core, { format: 'jsonl', runId: importedRunId })).toBe(
      jsonl.replaceAll(runId, importedRunId),
    );
  });

  it('exports the same run as a Perfetto trace with one valid track per request', async () => {
    const trace = JSON.parse(await exportText(core, { format: 'chrome-trace', runId })) as {
      traceEvents: { name: string; pid: number }[];
    };
    expect(traceProblems(trace)).toEqual([]);
    expect(trace.traceEvents.filter((e) => e.name === 'request')).toHaveLength(original.length);
    expect(trace.traceEvents.some((e) => e.name.endsWith('(lost)'))).toBe(true);
  });
});
