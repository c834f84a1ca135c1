import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_EXAMPLE_LINE } from '../../src-main/telemetry/trace/trace-example';
import { figuresOf } from '../support/compare';
import { BUNDLED_MODEL_REF } from '../support/models';
import { sendMessage, setSampling, waitForDone, setViewMode } from './chat-driver';
import type { E2eApp } from './harness';
import { startE2eApp } from './harness';

const QUESTIONS = [
  'Who is Mr Bingley?',
  'Describe Longbourn.',
  'What is Pemberley like?',
  'Who is Lady Catherine?',
];

describe('dashboard, slots, runs, traces and bench in a real browser', () => {
  let app: E2eApp;
  const requestIds: string[] = [];
  beforeAll(async () => {
    app = await startE2eApp();
    await setViewMode(app.page, 'expert');
    await setSampling(app.page, { temperature: 0.8, seed: 3, maxTokens: 12 });
    for (const question of QUESTIONS)
      requestIds.push(await waitForDone(await sendMessage(app.page, question)));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('the dashboard shows percentiles after several requests, matching the service', async () => {
    await app.page.getByTestId('nav-dashboard').click();
    const table = app.page.getByTestId('percentile-table');
    await table.getByTestId('ttft-p50').and(app.page.locator('[data-ms]:not([data-ms=""])')).waitFor();
    // The last answer's timeline can land just after its stream shows done: the table is read
    // against the service's report until the two agree (they must, within a few seconds).
    const shownMinusReported = async () => {
      const report = await app.call('report.live', {});
      const shown = async (id: string) => Number(await table.getByTestId(id).getAttribute('data-ms'));
      return Math.max(
        Math.abs((await shown('ttft-p50')) - report.ttft.p50Ms!),
        Math.abs((await shown('ttft-p95')) - report.ttft.p95Ms!),
      );
    };
    await expect.poll(shownMinusReported, { timeout: 5_000, interval: 200 }).toBeLessThan(1e-6);
    const chart = app.page.getByTestId('recent-ttft-chart');
    await chart.waitFor();
    const box = (await chart.locator('.recharts-surface').boundingBox())!;
    await app.page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
    const tooltip = chart.getByTestId('chart-tooltip');
    await tooltip.waitFor();
    expect(await tooltip.textContent()).toMatch(/request [0-9a-f]{8}/);
    await app.screenshot('dashboard');
    await app.page.mouse.move(0, 0);
  });

  it('the slots view shows the model resident', async () => {
    await app.page.getByTestId('nav-slots').click();
    await app.page.locator('[data-testid="slot-card"][data-status="resident"]').waitFor();
    await app.page.getByTestId('residency-band').first().waitFor();
    await app.screenshot('slots');
  });

  it('unloads and loads the slot from its card, in the words Simple uses; the residency timeline records both', async () => {
    const card = app.page.getByTestId('slot-card').first();
    expect(await card.locator('.status-badge').textContent()).toBe('loaded');
    await card.getByRole('button', { name: 'Unload' }).click();
    await app.page
      .locator('[data-testid="slot-card"][data-status="empty"], [data-testid="model-card"]')
      .first()
      .waitFor();
    await app.page.getByRole('button', { name: 'Load', exact: true }).first().click();
    const resident = app.page.locator('[data-testid="slot-card"][data-status="resident"]');
    await resident.waitFor();
    // The first load saved ONNX Runtime's optimized graph; this one built from it.
    expect(await resident.getByTestId('slot-last-load').textContent()).toMatch(
      /from the saved optimized graph$/,
    );
    const causes: (string | null)[] = [];
    for (const band of await app.page.getByTestId('residency-band').all())
      causes.push(await band.getAttribute('data-cause'));
    expect(causes).toContain('manual');
    expect(causes).toContain('prefetch');
  });

  it('runs a load replay and the first-frame benchmark from the UI, then compares them', async () => {
    await app.page.getByTestId('nav-bench').click();
    const load = app.page.getByTestId('bench-load');
    await load.getByLabel('requests').fill('6');
    await load.getByLabel('rate/s').fill('20');
    await app.page.getByTestId('bench-start-load').click();
    await app.page.locator('[data-testid="bench-progress"][data-done="true"]').first().waitFor();
    await app.page.getByTestId('bench-first-frame').getByLabel('runs').fill('1');
    await app.page.getByTestId('bench-start-first-frame').click();
    await expect
      .poll(() => app.page.locator('[data-testid="bench-progress"][data-done="true"]').count(), {
        timeout: 120_000,
      })
      .toBe(2);
    await app.screenshot('bench');
    await app.page.getByTestId('nav-runs').click();
    await expect.poll(() => app.page.getByTestId('run-row').count()).toBe(2);
    await app.page.getByTestId('run-row').nth(0).getByRole('checkbox').check();
    await app.page.getByTestId('run-row').nth(1).getByRole('checkbox').check();
    await app.page.getByTestId('runs-compare').click();
    await app.page.getByTestId('compare-table').waitFor();
    await app.page.getByTestId('compare-chart').waitFor();
    // Both runs recorded the weights they ran on (Expert shows the content hash).
    expect(await app.page.getByTestId('configuration-models').first().textContent()).toMatch(
      new RegExp(`^${BUNDLED_MODEL_REF} [0-9a-f]{8}$`),
    );
    expect(await app.page.getByTestId('workload-block').first().textContent()).not.toMatch(/\b1 runs\b/);
    await app.screenshot('runs');
  });

  it('runs an experiment over seats from the Bench view and opens its arms compared, seats highlighted', async () => {
    await app.page.getByTestId('nav-bench').click();
    const panel = app.page.getByTestId('bench-experiment');
    await panel.getByTestId('experiment-setting').selectOption('maxSeats');
    await panel.getByTestId('experiment-values').fill('1,2');
    await panel.getByLabel('burst', { exact: true }).fill('2');
    await panel.getByLabel('requests', { exact: true }).fill('2');
    await app.page.getByTestId('bench-start-experiment').click();
    const done = app.page.locator('[data-testid="bench-progress"][data-done="true"]');
    await expect.poll(() => done.count(), { timeout: 120_000 }).toBe(3);
    await app.page.getByRole('button', { name: 'Compare 2 arms' }).click();
    const configurations = app.page.getByTestId('configuration-table');
    await configurations.waitFor();
    const differs = configurations.locator('tr[data-differs="true"]');
    expect(await differs.count()).toBe(1);
    expect(await differs.first().textContent()).toMatch(/Answers at once per model \(requests\)\s*12/);
    await expect.poll(() => app.page.getByTestId('decision').count()).toBe(1);
    expect(await app.page.getByTestId('decision').first().textContent()).toMatch(
      /^Under .*, B (cuts|raises|keeps) p95/,
    );
    const settings = await app.call('settings.get', {});
    expect(settings.settings.maxSeats).toBe(4);
    await app.screenshot('experiment');
  });

  it('exports the live window as CSV from the Runs view and as JSONL from the Dashboard', async () => {
    await app.page.getByTestId('nav-runs').click();
    const rows = parse(await download(app, 'export-csv-live'), { columns: true }) as Record<string, string>[];
    const exported = new Set(rows.map((row) => row.request_id));
    for (const requestId of requestIds) expect(exported.has(requestId), requestId).toBe(true);
    const mine = rows.find((row) => row.request_id === requestIds[0])!;
    expect(Number(mine.ttft_ms)).toBeGreaterThan(0);
    await app.page.getByTestId('nav-dashboard').click();
    const lines = (await download(app, 'export-jsonl-live')).toString('utf8').trimEnd().split('\n');
    const ids = lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId);
    for (const requestId of requestIds) expect(ids).toContain(requestId);
  });

  it('exports a stored run as JSONL and as a Perfetto trace from its row; the JSONL imports back in the Traces view with the same report', async () => {
    await app.page.getByTestId('nav-runs').click();
    const [run] = await app.call('runs.list', {});
    const jsonl = await download(app, `export-jsonl-${run!.runId}`);
    expect(jsonl.toString('utf8').trimEnd().split('\n')).toHaveLength(run!.numRequests);
    const trace = JSON.parse((await download(app, `export-chrome-trace-${run!.runId}`)).toString('utf8')) as {
      traceEvents: { name: string; ph: string }[];
    };
    expect(trace.traceEvents.filter((e) => e.name === 'request' && e.ph === 'X')).toHaveLength(
      run!.numRequests,
    );
    await app.page.getByTestId('nav-traces').click();
    await app.page
      .getByTestId('trace-file')
      .setInputFiles({ name: 'run.jsonl', mimeType: 'application/x-ndjson', buffer: jsonl });
    const result = app.page.getByTestId('trace-result');
    await expect
      .poll(() => result.textContent())
      .toMatch(`${run!.numRequests} of ${run!.numRequests} lines imported into a new run`);
    const importedRunId = (await result.getAttribute('data-run-id'))!;
    await expect
      .poll(async () => (await app.call('runs.list', {})).find((r) => r.runId === importedRunId)?.numRequests)
      .toBe(run!.numRequests);
    const slo = { ttftMs: 1_000, itlMs: 80 };
    const compared = await app.call('runs.compare', { runIds: [run!.runId, importedRunId], slo });
    expect(figuresOf(compared, importedRunId)).toEqual(figuresOf(compared, run!.runId));
    const [original, reimported] = compared.histogram.series;
    expect(reimported!.counts).toEqual(original!.counts);
  });

  it('shows the trace format as an example line that imports as it is', async () => {
    await app.page.getByTestId('nav-traces').click();
    const example = await app.page.getByTestId('trace-example').textContent();
    expect(example).toBe(TRACE_EXAMPLE_LINE);
    await app.page.getByTestId('trace-file').setInputFiles({
      name: 'example.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(example!),
    });
    await expect
      .poll(() => app.page.getByTestId('trace-result').textContent(), { timeout: 30_000 })
      .toMatch(/^example\.jsonl: 1 of 1 lines imported into a new run/);
    await app.call('runs.delete', {
      runId: (await app.page.getByTestId('trace-result').getAttribute('data-run-id'))!,
    });
  });

  it('imports a trace with a bad line: shows its line number, then imports the good lines', async () => {
    const timelines = (await app.call('timelines.recent', { limit: 100 })).filter((t) =>
      requestIds.includes(t.requestId),
    );
    const lines = timelines.map((t) => JSON.stringify(t));
    lines.splice(2, 0, '{"requestId": "half-a-record"}');
    await app.page.getByTestId('nav-traces').click();
    const file = {
      name: 'with-a-bad-line.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(lines.join('\n')),
    };
    await app.page.getByTestId('trace-file').setInputFiles(file);
    const rejected = app.page.getByTestId('rejected-line');
    await rejected.first().waitFor();
    expect(await rejected.count()).toBe(1);
    expect(await rejected.first().getAttribute('data-line')).toBe('3');
    expect(await rejected.first().textContent()).toMatch(/line 3/);
    expect(await app.page.getByTestId('trace-result').textContent()).toMatch(
      /0 of 5 lines imported\. 1 line was bad, so nothing was imported\./,
    );
    await app.screenshot('traces-rejected');
    // The good lines import in place: the file is not picked again.
    await app.page.getByRole('button', { name: `Import the ${timelines.length} good lines` }).click();
    await app.page.getByTestId('percentile-table').waitFor();
    await expect
      .poll(() => app.page.getByTestId('trace-result').textContent())
      .toMatch(`${timelines.length} of ${lines.length} lines imported`);
    await app.screenshot('traces');
  });

  it('shows what a settings change costs before applying it, then applies it', async () => {
    await app.page.getByTestId('nav-settings').click();
    // Each line says what the setting does, its default and when a change takes effect.
    expect(await app.page.locator('#setting-pageSize-help').textContent()).toMatch(
      /Default: 16 tokens; applies when the models reload \(Apply unloads them\)\./,
    );
    // Keep threads ready while answering: a switch, on unless the user turns it off.
    expect(await app.page.getByTestId('setting-canSpinThreads').isChecked()).toBe(true);
    expect(await app.page.locator('#setting-canSpinThreads-help').textContent()).toMatch(
      /spinning instead of sleeping.*Default: on; applies when the models reload/,
    );
    // The provider check answers after Settings opened: the list updates by itself, no reopening.
    const providers = app.page.getByTestId('setting-executionProvider').locator('option');
    await expect
      .poll(async () => (await providers.allTextContents()).some((o) => /checking/.test(o)), {
        timeout: 60_000,
      })
      .toBe(false);
    expect((await providers.allTextContents())[0]).toBe('CPU');
    await app.page.getByTestId('setting-maxQueue').fill('32');
    await expect.poll(() => app.page.getByTestId('settings-cost').getAttribute('data-level')).toBe('request');
    await app.page.getByTestId('setting-pageSize').fill('32');
    const cost = app.page.getByTestId('settings-cost');
    await expect.poll(() => cost.getAttribute('data-level')).toBe('slots');
    expect(await cost.textContent()).toMatch(/unloads; its next request pays a cold load/);
    await app.screenshot('settings');
    await app.page.getByTestId('settings-apply').click();
    await expect
      .poll(() => app.page.getByTestId('settings-applied').textContent())
      .toMatch(/context piece size 16 → 32, queue limit 64 → 32/);
    const settings = await app.call('settings.get', {});
    expect(settings.settings).toMatchObject({ maxQueue: 32, pageSize: 32 });
    await app.page.getByTestId('setting-maxSeats').fill('0');
    await expect.poll(() => app.page.getByTestId('settings-apply').isDisabled()).toBe(true);
    const error = app.page.locator('[data-testid="settings-error"][data-setting="maxSeats"]');
    expect(await error.textContent()).toBe(
      'Answers at once per model takes a whole number from 1 to 64 requests; “0” is not one.',
    );
    // The default model is picked from the models that load here, never typed.
    const picker = app.page.getByTestId('setting-defaultModel');
    const options = await picker.locator('option').allTextContents();
    expect(options[0]).toMatch(/^auto/);
    expect(options.some((o) => /ff-austen-mini · q4 \(demo\)/.test(o))).toBe(true);
    await app.screenshot('settings-invalid');
    await app.page.getByRole('button', { name: 'Discard' }).click();
    await expect.poll(() => error.count()).toBe(0);
  });

  it('shows the whole model picker and the Detail menu at 1440 and at 1024 px wide', async () => {
    for (const size of [
      { width: 1440, height: 900 },
      { width: 1024, height: 700 },
    ]) {
      await app.page.setViewportSize(size);
      await app.page.getByTestId('nav-chat').click();
      await app.screenshot(`chat-${size.width}`);
      const picker = await fitOf(app, '[data-testid="model-picker"]');
      expect(picker.rightPx, `picker at ${size.width}`).toBeLessThanOrEqual(size.width);
      expect(picker.widthPx, `picker at ${size.width}`).toBeGreaterThanOrEqual(picker.naturalWidthPx - 1);
      await app.page.getByTestId('nav-settings').click();
      await app.screenshot(`settings-${size.width}`);
      const detail = await fitOf(app, '#pref-mode');
      expect(detail.rightPx, `Detail at ${size.width}`).toBeLessThanOrEqual(size.width);
      expect(detail.widthPx, `Detail at ${size.width}`).toBeGreaterThanOrEqual(detail.naturalWidthPx - 1);
    }
    await app.page.setViewportSize({ width: 1280, height: 900 });
  });

  it('raised no console errors and no CSP violations', () => {
    expect(app.problems).toEqual([]);
  });
});

/** A control's drawn width and right edge, and the width it takes with no width limit (its longest entry). */
async function fitOf(app: E2eApp, selector: string) {
  await app.page.locator(selector).waitFor();
  // A string, as axe.ts does: the test project is typed without the DOM library.
  return (await app.page.evaluate(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    const copy = el.cloneNode(true);
    copy.style.cssText = 'position:absolute;left:0;top:0;max-width:none;min-width:0;width:auto;visibility:hidden';
    el.parentElement.append(copy);
    const naturalWidthPx = copy.getBoundingClientRect().width;
    copy.remove();
    const box = el.getBoundingClientRect();
    return { widthPx: box.width, rightPx: box.right, naturalWidthPx };
  })()`)) as { widthPx: number; rightPx: number; naturalWidthPx: number };
}

/** Clicks an export control and returns the downloaded file's bytes. */
async function download(app: E2eApp, testId: string): Promise<Buffer> {
  const [file] = await Promise.all([app.page.waitForEvent('download'), app.page.getByTestId(testId).click()]);
  return readFileSync(await file.path());
}
