import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../src-main/runtime/settings/schema';
import { compareRuns } from '../../../src-main/service/compare/compare-runs';
import { listedIdsOf, runWithListedIds } from '../../../src-main/service/listed-model-ids';
import { reloadWindow } from '../../../src-main/service/window-reload';
import { openSqliteHistory } from '../../../src-main/history/history';
import type { Log } from '../../../src-main/telemetry/log/log';
import { TimelineWindow } from '../../../src-main/telemetry/report/window';
import { timeline } from '../telemetry/report/timeline-fixture';
import { useTempDirs } from '../history/temp-dir';

const tempDir = useTempDirs();

/** The bundled model as the list has it today: `model.onnx` holding fp16, so its id says fp16. */
const BUNDLED = { modelId: 'mini:fp16', name: 'mini', variant: 'fp32', isDefaultVariant: true };
/** A q4 file: its id and its file's variant agree, so nothing maps to it. */
const Q4 = { modelId: 'mini:q4', name: 'mini', variant: 'q4', isDefaultVariant: false };

describe('old model ids shown by today’s', () => {
  it('maps a variant’s old file id to the id the list gives it, and leaves every other id alone', () => {
    const listedIdOf = listedIdsOf([BUNDLED, Q4]);
    expect(listedIdOf('mini:fp32')).toBe('mini:fp16');
    expect(listedIdOf('mini:fp16')).toBe('mini:fp16');
    expect(listedIdOf('mini:q4')).toBe('mini:q4');
    expect(listedIdOf('mini')).toBe('mini');
    expect(listedIdOf('gone:fp32')).toBe('gone:fp32');
  });

  it('names an old run’s model like a new run’s: in its name, its model revisions and its default model', () => {
    const old = {
      runId: 'r1',
      name: 'Load test · mini:fp32 · 3 May 2026, 10:00',
      startedWallMs: 0,
      numRequests: 0,
      config: {
        settings: { ...DEFAULT_SETTINGS, defaultModel: 'mini:fp32' },
        modelRevisions: { 'mini:fp32': 'abc' },
      },
    };
    const shown = runWithListedIds(old, listedIdsOf([BUNDLED, Q4]));
    expect(shown.name).toBe('Load test · mini:fp16 · 3 May 2026, 10:00');
    expect(shown.config.modelRevisions).toEqual({ 'mini:fp16': 'abc' });
    expect(shown.config.settings?.defaultModel).toBe('mini:fp16');
  });

  it('compares an old run and a new one on the same weights as one configuration under one name', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const settings = { ...DEFAULT_SETTINGS, defaultModel: null };
    const old = history.runs.create({
      name: 'Load test · mini:fp32 · 3 May 2026, 10:00',
      config: { settings, modelRevisions: { 'mini:fp32': 'abc' }, workload: 'w' },
    });
    const now = history.runs.create({
      name: 'Load test · mini:fp16 · 4 May 2026, 10:00',
      config: { settings, modelRevisions: { 'mini:fp16': 'abc' }, workload: 'w' },
    });
    const listedIdOf = listedIdsOf([BUNDLED, Q4]);
    const comparison = compareRuns(history, [old.runId, now.runId], { ttftMs: 100, itlMs: 50 }, [], (run) =>
      runWithListedIds(run, listedIdOf),
    );
    expect(comparison.configurations.map((c) => [c.label, c.modelRevisions])).toEqual([
      ['A, B', { 'mini:fp16': 'abc' }],
    ]);
    expect(comparison.workloads[0]!.rows.map((r) => r.name)).toEqual([
      'Load test · mini:fp16 · 3 May 2026, 10:00',
      'Load test · mini:fp16 · 4 May 2026, 10:00',
    ]);
  });

  it('reloads old answers into the Dashboard’s window under today’s id, so its model classes do not split', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    history.writer.enqueue(timeline({ arrivedAt: 1_000, modelId: 'mini:fp32' }));
    history.writer.enqueue(timeline({ arrivedAt: 2_000, modelId: 'mini:fp16' }));
    history.writer.flush();
    const window = new TimelineWindow();
    const log = { warn: () => {} } as unknown as Log;
    expect(reloadWindow(history, window, log, listedIdsOf([BUNDLED, Q4]))).toBe(2);
    expect(window.toArray().map((t) => t.modelId)).toEqual(['mini:fp16', 'mini:fp16']);
  });
});
