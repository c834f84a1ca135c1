import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSlot } from '../../../src-main/runtime/slot-worker/load-slot';
import type { LoadJob } from '../../../src-main/runtime/slot-worker/protocol';
import { decoderIoOf } from '../../../src-main/runtime/model/decoder-io';
import { readGraphSummary } from '../../../src-main/runtime/model/onnx-graph/graph-summary';
import { EDITABLE_MODEL, loadGraph } from '../../support/fusion-graphs';
import { randomModelsDir } from '../../support/models';

const root = mkdtempSync(path.join(tmpdir(), 'ff-slot-graph-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The worker's load job for the float32 naive test model, fusion at load on. */
function jobOf(graphCacheDir: string | null): LoadJob {
  const graph = loadGraph(
    EDITABLE_MODEL,
    path.join(randomModelsDir([EDITABLE_MODEL]), EDITABLE_MODEL),
    'onnx/model.onnx',
  );
  const onnxPath = path.join(graph.dir, graph.file);
  const io = decoderIoOf(readGraphSummary(onnxPath), graph.hints.shape, 0);
  return {
    type: 'load',
    file: graph.file,
    onnxPath,
    externalData: [],
    io,
    modelRevision: 'test-slot-graph',
    geometry: { ...graph.hints.shape, kvDtype: io.kvDtype, rows: io.kvRows },
    numThreads: 1,
    canSpinThreads: true,
    provider: { provider: 'cpu', isCpuFallbackAllowed: false },
    graphCacheDir,
    canCachePrepacked: true,
    graphCacheBytes: 1 << 20,
    graphCacheSkip: null,
    fusion: { isOn: true, hints: graph.hints },
  };
}

/** Runs `load` with os.tmpdir() answering `dir` (the load runs in this thread, as in a slot's worker). */
async function withTmpDir<T>(dir: string, load: () => Promise<T>): Promise<T> {
  const before = process.env['TMPDIR'];
  process.env['TMPDIR'] = dir;
  try {
    return await load();
  } finally {
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
  }
}

describe('the graph a slot loads when its fused graph cannot be written', () => {
  it('runs the graph as exported with the reason when neither the load cache nor the temporary folder can hold a file, and leaves nothing behind', async () => {
    const place = mkdtempSync(path.join(root, 'unwritable-'));
    // A file where the folders should be: no file can be created under it.
    const blocker = path.join(place, 'a-file');
    writeFileSync(blocker, '');
    const job = jobOf(path.join(blocker, 'cache'));
    const loaded = await withTmpDir(path.join(blocker, 'tmp'), () => loadSlot(job));
    await loaded.runner.release();
    expect(loaded.fusion).toMatchObject({
      status: 'as-exported',
      part: 'graph',
      reason: expect.stringMatching(
        /^the fused graph could not be written to disk for this load: ENOTDIR.*\(load cache: not saved: /,
      ) as string,
    });
    // The session is the original's (its warm-up ran), fed as exported.
    expect(loaded.io).toEqual(job.io);
    expect(loaded.graphCache.status).toBe('off');
    expect(readdirSync(place)).toEqual(['a-file']);
    expect(statSync(blocker).size).toBe(0);
  });

  it('runs the fused graph from a temporary file, removed once loaded, when there is no load cache folder', async () => {
    const tmp = mkdtempSync(path.join(root, 'tmp-'));
    const loaded = await withTmpDir(tmp, () => loadSlot(jobOf(null)));
    await loaded.runner.release();
    expect(loaded.fusion).toMatchObject({ status: 'fused', isFromCache: false });
    expect(loaded.io).toMatchObject({ kvRows: 'start' });
    expect(readdirSync(tmp)).toEqual([]);
  });
});
