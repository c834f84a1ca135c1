import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/service/create-core';
import type { QualityResult } from '../../../src-main/service/contract/quality-schemas';
import type { ModelEntry } from '../../../src-main/service/contract/schemas';
import type { Core } from '../../../src-main/service/core-options';
import { QUALITY_FILE, storeQualityResults } from '../../../src-main/service/quality-file';
import { createHistory } from '../../../src-main/history/create-history';
import { TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';

const SLO = { ttftMs: 1000, itlMs: 200 };

function resultFor(entry: ModelEntry, bitsPerByte: number): QualityResult {
  return {
    modelId: entry.modelId,
    name: entry.name,
    variant: entry.variant!,
    modelRevision: entry.modelRevision!,
    weightDtype: entry.weightDtype!,
    referenceVariant: 'fp32',
    bitsPerByte,
    bitsPerByteVsReferencePct: ((bitsPerByte - 1.3) / 1.3) * 100,
    agreement: 0.5,
    top1Agreement: 0.9,
    numPrompts: 8,
    numTokensPerPrompt: 32,
    numScoredTokens: 2900,
    numTextBytes: 11935,
    textSha256: 'abc',
    measuredAtWallMs: 1,
  };
}

describe('measured quality beside speed', () => {
  let dataDir: string;
  let core: Core;
  let runIds: Record<string, string>;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-quality-'));
    const probe = await createCore({ dataDir, bundledModelsDir: TEST_MODELS_DIR, host: 'headless' });
    const models = await probe.service.call('models.list', {});
    await probe.close();
    if (!models.ok) throw new Error(models.error.message);
    // By the file's variant: the id names model.onnx by its weights (fp16).
    const entryOf = (variant: string) =>
      models.value.find((m) => m.name === TEST_MODEL_ID && m.variant === variant)!;
    storeQualityResults(dataDir, [resultFor(entryOf('fp32'), 1.3), resultFor(entryOf('q4'), 1.31)]);
    const history = createHistory({ path: path.join(dataDir, 'history.sqlite'), isPruning: false });
    const run = (name: string, config: Record<string, unknown>) =>
      history.runs.create({ name, config }).runId;
    const revisions = (variant: string) => ({
      [entryOf(variant).modelId]: entryOf(variant).modelRevision,
    });
    runIds = {
      fp32: run('fp32', { modelRevisions: revisions('fp32') }),
      q4: run('q4', { modelRevisions: revisions('q4') }),
      q4again: run('q4 again', { modelRevisions: revisions('q4') }),
    };
    history.close();
    core = await createCore({ dataDir, bundledModelsDir: TEST_MODELS_DIR, host: 'headless' });
  });
  afterAll(async () => {
    await core?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists stored quality results by variant', async () => {
    const quality = await core.service.call('models.quality', {});
    if (!quality.ok) throw new Error(quality.error.message);
    expect(quality.value.map((q) => q.variant).sort()).toEqual(['fp32', 'q4']);
  });

  it('compares two runs of different variants with each side’s quality, and runs of one variant without', async () => {
    const differ = await core.service.call('runs.compare', {
      runIds: [runIds['fp32']!, runIds['q4']!],
      slo: SLO,
    });
    if (!differ.ok) throw new Error(differ.error.message);
    expect(differ.value.isModelVaried).toBe(true);
    expect(differ.value.configurations.map((c) => c.quality?.bitsPerByte)).toEqual([1.3, 1.31]);
    const same = await core.service.call('runs.compare', {
      runIds: [runIds['q4']!, runIds['q4again']!],
      slo: SLO,
    });
    if (!same.ok) throw new Error(same.error.message);
    expect(same.value.isModelVaried).toBe(false);
    expect(same.value.configurations).toHaveLength(1);
  });

  it('answers a clear error for a malformed quality file instead of failing every compare', async () => {
    writeFileSync(path.join(dataDir, QUALITY_FILE), '{ not json');
    const quality = await core.service.call('models.quality', {});
    expect(quality).toMatchObject({ ok: false, error: { message: `${QUALITY_FILE}: malformed JSON` } });
    const compare = await core.service.call('runs.compare', {
      runIds: [runIds['fp32']!, runIds['q4']!],
      slo: SLO,
    });
    expect(compare.ok && compare.value.configurations.map((c) => c.quality)).toEqual([null, null]);
  });
});
