import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLayerNorm, writeEditedModel } from '../support/fusion-graphs';
import { BUNDLED_MODEL_ID, BUNDLED_MODEL_REF, naiveBundledModelsDir } from '../support/models';
import { setViewMode } from './chat-driver';
import type { E2eApp } from './harness';
import { startE2eApp } from './harness';

describe('the Slots card says which graph each slot runs', () => {
  let app: E2eApp;
  const scratch = mkdtempSync(path.join(tmpdir(), 'ff-e2e-fusion-'));
  beforeAll(async () => {
    app = await startE2eApp({
      userModels: {
        'austen-naive': path.join(naiveBundledModelsDir(), BUNDLED_MODEL_ID),
        'tiny-layernorm': writeEditedModel(path.join(scratch, 'tiny-layernorm'), withLayerNorm(64)),
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('fused at load (in Expert with nodes per token before → after), as exported with the part and why, already fused', async () => {
    await app.page.getByTestId('nav-slots').click();
    const card = (modelId: string) =>
      app.page.locator(`[data-testid="slot-card"][data-model-id="${modelId}"]`);
    for (const modelId of ['austen-naive:fp16', 'tiny-layernorm:fp32']) {
      await app.page
        .locator(`[data-testid="model-card"][data-model-id="${modelId}"]`)
        .getByRole('button', { name: 'Load' })
        .click();
      await card(modelId).and(app.page.locator('[data-status="resident"]')).waitFor();
    }
    const bundled = BUNDLED_MODEL_REF;
    await app.call('slots.prefetch', { modelId: bundled });
    await card(bundled).and(app.page.locator('[data-status="resident"]')).waitFor();
    const graphOf = (modelId: string) => card(modelId).getByTestId('slot-graph').textContent();
    // Simple says which graph runs; Expert adds the nodes per token before → after.
    expect(await graphOf('austen-naive:fp16')).toMatch(/fused at load$/);
    await setViewMode(app.page, 'expert');
    expect(await graphOf('austen-naive:fp16')).toMatch(/fused at load · \d+ → \d+ nodes per token$/);
    expect(await graphOf('tiny-layernorm:fp32')).toMatch(
      /as exported — layers\.0\.input_layernorm did not fuse: \S.*$/,
    );
    expect(await graphOf(bundled)).toMatch(/already fused$/);
    const slots = await app.call('slots.list', {});
    // Each card shows the model file's size and the threads its session computes with.
    const threads = slots.find((s) => s.modelId === bundled)!.numThreads;
    expect(await card(bundled).getByTestId('slot-threads').textContent()).toMatch(
      new RegExp(`^${threads}\\b`),
    );
    expect(await card(bundled).getByTestId('slot-file-size').textContent()).toMatch(/\d (KiB|MiB|GiB)$/);
    expect(Object.fromEntries(slots.map((s) => [s.modelId, s.fusion?.status]))).toEqual({
      'austen-naive:fp16': 'fused',
      'tiny-layernorm:fp32': 'as-exported',
      [bundled]: 'already-fused',
    });
    await app.screenshot('slots-fusion');
  });

  it('shows load-time fusion as a switch in Settings; turning it off reloads the models', async () => {
    await app.page.getByTestId('nav-settings').click();
    const toggle = app.page.getByTestId('setting-canFuseAtLoad');
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    const cost = app.page.getByTestId('settings-cost');
    await expect.poll(() => cost.getAttribute('data-level')).toBe('slots');
    expect(await cost.textContent()).toMatch(/austen-naive:fp16 unloads/);
    await app.screenshot('settings-fusion-off');
    await app.page.getByRole('button', { name: 'Discard' }).click();
    expect(await toggle.isChecked()).toBe(true);
  });

  it('raised no console errors and no CSP violations', () => {
    expect(app.problems).toEqual([]);
  });
});
