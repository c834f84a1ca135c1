import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWS } from '../../src-renderer/store/ui-store';
import { seriousAxeFindings } from './axe';
import type { AxeFinding } from './axe';
import { sendMessage, setSampling, setViewMode, waitForDone } from './chat-driver';
import type { Locator } from 'playwright-core';
import type { E2eApp } from './harness';
import { SCREENSHOT_DIR, startE2eApp } from './harness';
import { BUNDLED_MODEL_ID, BUNDLED_MODEL_REF, BUNDLED_MODELS_DIR } from '../support/models';
import { startHubServer } from '../support/hub-server';
import type { HubServer } from '../support/hub-server';
import {
  fakeEnvironment,
  treeStamp,
  writeHfRepo,
  writeOllamaModel,
  writeTinyGguf,
} from '../support/model-stores';

const GROUP_KEYS = ['waiting', 'loading', 'reading', 'first-token'];
/** Zod's default wording: none of it may reach a user. */
const SCHEMA_TEXT = /Too big|Too small|Invalid input|Invalid option|expected (string|number|array)|received/;
// Runs in the page: the focused control's name and whether a ring (outline or shadow) is drawn.
const FOCUSED_RING = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body || !el.matches('button, a, input, select, textarea, summary')) return null;
  const s = getComputedStyle(el);
  const hasOutline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
  return { name: el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40) || el.tagName, hasRing: hasOutline || s.boxShadow !== 'none' };
})()`;
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;

describe('a newcomer on a fresh profile: first-run card, Simple view, model chip, Regenerate, every view checked', () => {
  let app: E2eApp;
  let hub: HubServer;
  // A temporary home where Ollama, LM Studio and the Hugging Face cache keep a model each.
  const home = mkdtempSync(path.join(tmpdir(), 'ff-e2e-home-'));
  beforeAll(async () => {
    fakeStores(home);
    // A hub on loopback laid out as huggingface.co, holding one GGUF repository (a tiny file).
    hub = await startHubServer({
      'someone/Tiny-GGUF': [
        { path: 'Tiny-Mamba-Q4_0.gguf', bytes: readFileSync(path.join(home, 'src', 'tiny.gguf')) },
      ],
    });
    app = await startE2eApp({ discoveryEnvironment: fakeEnvironment(home), hubUrl: hub.url });
  });
  afterAll(async () => {
    await app?.close();
    await hub?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('says what the bundled model is and where to put a real one (the folder by its absolute path)', async () => {
    const card = app.page.getByTestId('first-run-card');
    await card.waitFor();
    expect(await card.textContent()).toMatch(/tiny demo model.*Jane Austen/);
    expect(await app.page.getByTestId('view-mode').getAttribute('data-mode')).toBe('simple');
    await card.getByRole('button', { name: 'Add a model' }).click();
    const folder = app.page.getByTestId('models-folder-path');
    await folder.waitFor();
    // The card steps aside while the panel is open (it is not squeezed under it), and the panel has the focus.
    expect(await card.count()).toBe(0);
    expect(await app.page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(
      'Close Add a model',
    );
    const status = await app.call('app.status', {});
    expect(await folder.textContent()).toBe(status.modelsDir);
    expect(path.isAbsolute(status.modelsDir)).toBe(true);
    // A browser cannot open a folder on the host: it copies the path instead.
    expect(await app.page.getByTestId('models-folder-copy').isVisible()).toBe(true);
    expect(await app.page.getByTestId('add-model').textContent()).toMatch(/Hugging Face ONNX folder/);
    // Models other programs keep are listed only once the user turns that on.
    await expect.poll(() => app.page.getByTestId('discovery-toggle').isEnabled()).toBe(true);
    expect(await app.page.getByTestId('discovery-toggle').isChecked()).toBe(false);
    expect(await app.page.getByTestId('model-picker').locator('option').first().textContent()).toMatch(
      /\(demo, /,
    );
    await app.screenshot('chat-first-run');
    // It lies over the chat, so Escape closes it (and stops nothing).
    await app.page.keyboard.press('Escape');
    await expect.poll(() => app.page.getByTestId('add-model').count()).toBe(0);
    await card.waitFor();
    expect(await app.page.evaluate('document.activeElement?.dataset.testid')).toBe('open-add-model');
  });

  it('Simple view: the answer carries its model chip, a four-group bar and one sentence', async () => {
    await setSampling(app.page, { maxTokens: 24, ignoreEos: true });
    const answer = await sendMessage(app.page, 'Hello! Who are you?');
    await waitForDone(answer);
    const chip = answer.getByTestId('answer-model');
    expect(await chip.textContent()).toMatch(/^ff-austen-mini · fp16 · this computer \(CPU\)demo$/);
    expect(await answer.getByTestId('ttft-groups').isVisible()).toBe(true);
    expect(await answer.locator('[data-testid^="ttft-part-"]').count()).toBe(0);
    expect(await answer.getByTestId('plain-sentence').textContent()).toMatch(
      /^The first word reached the window after [\d.,]+ (ms|s), (most of it|the largest part \([\d.]+%\)) .*\. Then [\d.]+ tokens a second\.\s*$/,
    );
    expect(await app.page.getByTestId('first-run-card').count()).toBe(0);
    await app.screenshot('chat-simple');
  });

  it('Regenerate writes a different answer at the default sampling, and says so', async () => {
    const panel = app.page.getByTestId('settings-panel');
    expect(await panel.getByTestId('regenerate-note').textContent()).toMatch(
      /^Regenerate writes a different answer/,
    );
    const answer = app.page.getByTestId('message-assistant').last();
    const texts = new Set([await answer.locator('.message-text').textContent()]);
    for (let i = 0; i < 3 && texts.size < 2; i++) {
      await answer.getByTestId('message-regenerate').click();
      await expect.poll(() => answer.getAttribute('data-version')).toBe(String(i + 2));
      await waitForDone(answer);
      texts.add(await answer.locator('.message-text').textContent());
    }
    expect(texts.size).toBe(2);
  });

  it('Simple Dashboard: recent answers in four groups whose means add up to the mean wait; Expert one click away', async () => {
    await app.page.getByTestId('nav-dashboard').click();
    const dashboard = app.page.locator('[data-testid="dashboard"][data-mode="simple"]');
    const chart = dashboard.getByTestId('recent-ttft-chart');
    await chart.locator('path[data-layer]').first().waitFor();
    const layers = await attributesOf(chart.locator('path[data-layer]'), 'data-layer');
    expect(layers.length).toBeGreaterThan(0);
    expect(layers.filter((key) => !GROUP_KEYS.includes(key!))).toEqual([]);
    const report = await app.call('report.live', {});
    const totalMs = Number(await dashboard.getByTestId('group-mean-total').getAttribute('data-ms'));
    expect(totalMs).toBeCloseTo(report.parts.meanTtftMs!, 6);
    const groupMs = (
      await attributesOf(
        dashboard.locator('[data-testid^="group-mean-"]:not([data-testid="group-mean-total"])'),
        'data-ms',
      )
    ).map(Number);
    // The parts sum to each TTFT within 0.001 ms per part, so their means do too.
    expect(Math.abs(groupMs.reduce((a, b) => a + b, 0) - totalMs)).toBeLessThan(0.011);
    expect(Number(await dashboard.getByTestId('ttft-p50').getAttribute('data-ms'))).toBeCloseTo(
      report.ttft.p50Ms!,
      6,
    );
    const shown = (await dashboard.innerText()).replace(/^.*Expert adds.*$/m, '');
    expect(shown).not.toMatch(/TTFT|seats|goodput|λ|p9\d/);
    const box = (await chart.locator('.recharts-surface').boundingBox())!;
    await app.page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    const tooltip = chart.getByTestId('chart-tooltip');
    await tooltip.waitFor();
    const tipLayers = await attributesOf(tooltip.locator('li'), 'data-layer');
    expect(tipLayers.filter((key) => !GROUP_KEYS.includes(key!))).toEqual([]);
    await app.screenshot('dashboard-simple');
    await app.page.mouse.move(0, 0);
    await dashboard.getByRole('button', { name: 'Show Expert' }).click();
    await app.page.locator('[data-testid="dashboard"][data-mode="expert"]').waitFor();
    expect(await app.page.getByTestId('view-mode').getAttribute('data-mode')).toBe('expert');
    await setViewMode(app.page, 'simple');
    await app.page.getByTestId('nav-chat').click();
  });

  it('Expert view: every part of the bar, kept across a reload', async () => {
    await setViewMode(app.page, 'expert');
    const answer = app.page.getByTestId('message-assistant').last();
    await answer.getByTestId('ttft-bar').waitFor();
    expect(await answer.locator('[data-testid^="ttft-part-"]').count()).toBeGreaterThan(2);
    await app.page.reload();
    await app.page.locator('[data-testid="view-mode"][data-mode="expert"]').waitFor();
    await setViewMode(app.page, 'simple');
  });

  it('every view at 1440×900 and 1024×700, light and dark: screenshots, and no serious or critical axe findings', async () => {
    // A stored run, so the Runs view is checked with a row in it.
    await app.call('bench.start', { kind: 'load', numRequests: 2, ratePerS: 20 });
    await expect
      .poll(async () => (await app.call('runs.list', {}))[0]?.numRequests, { timeout: 60_000 })
      .toBe(2);
    const findings: Record<string, AxeFinding[]> = {};
    for (const size of SIZES) {
      await app.page.setViewportSize(size);
      for (const view of VIEWS) {
        await app.page.getByTestId(`nav-${view}`).click();
        await app.page.locator(`main.view-${view}`).waitFor();
        // The view's first reads have landed once no "Loading…" line is left.
        await expect.poll(() => app.page.getByText(/^Loading/).count(), { timeout: 30_000 }).toBe(0);
        for (const scheme of ['light', 'dark'] as const) {
          await app.page.emulateMedia({ colorScheme: scheme });
          const name = `view-${view}-${size.width}x${size.height}-${scheme}`;
          await app.page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
          const serious = await seriousAxeFindings(app.page);
          if (serious.length > 0) findings[name] = serious;
        }
        await app.page.emulateMedia({ colorScheme: 'light' });
      }
    }
    expect(findings).toEqual({});
  });

  it('a run has a readable name, is renamed in place and deleted after a confirmation, its rows gone', async () => {
    await app.page.getByTestId('nav-runs').click();
    const row = app.page.getByTestId('run-row').first();
    const runId = (await row.getAttribute('data-run-id'))!;
    expect(await row.locator('th').textContent()).toMatch(new RegExp(`^Load test · ${BUNDLED_MODEL_REF} · `));
    await row.getByTestId('run-rename').click();
    await row.getByTestId('run-name-input').fill('Two quick requests');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await app.call('runs.list', {}))[0]?.name).toBe('Two quick requests');
    await row.getByTestId('run-delete').click();
    const confirm = row.getByTestId('run-delete-confirm');
    expect(await confirm.textContent()).toMatch(/Delete this run and its 2 requests from the history\?/);
    await app.screenshot('runs-delete-confirm');
    await confirm.getByTestId('run-delete-confirmed').click();
    await expect.poll(() => app.page.getByTestId('run-row').count()).toBe(0);
    expect(await app.call('runs.list', {})).toEqual([]);
    expect((await app.call('runs.exportCsv', { runId })).numRows).toBe(0);
  });

  it('lists the models Ollama, LM Studio and the Hugging Face cache keep once discovery is on, in place', async () => {
    await app.page.getByTestId('nav-slots').click();
    // Slot states and actions in plain words (Expert uses the same ones).
    const loaded = app.page.locator('[data-testid="slot-card"][data-status="resident"]').first();
    expect(await loaded.locator('.status-badge').textContent()).toBe('loaded');
    expect(await loaded.getByRole('button', { name: 'Unload' }).count()).toBe(1);
    expect(await app.page.getByTestId('model-card').first().locator('.status-badge').textContent()).toBe(
      'not loaded',
    );
    const found = app.page.getByTestId('add-model').getByTestId('discovered-models');
    await expect.poll(() => found.getByTestId('discovery-toggle').isEnabled()).toBe(true);
    const before = treeStamp(home);
    // The switch shows the service's answer, so it turns on once the service has said so.
    await found.getByTestId('discovery-toggle').click();
    // Turning it on rescans (and hashes what it finds): give a loaded machine time.
    await expect
      .poll(() => found.getByTestId('discovery-toggle').isChecked(), { timeout: 60_000 })
      .toBe(true);
    await expect.poll(() => found.getByTestId('discovery-place').count()).toBeGreaterThan(0);
    const places = await Promise.all(
      (await found.getByTestId('discovery-place').all()).map(async (li) => [
        await li.textContent(),
        await li.getAttribute('data-state'),
      ]),
    );
    expect(places).toContainEqual(['Ollama: read · 1 model', 'found']);
    expect(places).toContainEqual(['LM Studio: read · 1 model', 'found']);
    expect(places).toContainEqual(['Hugging Face cache: read · 1 model', 'found']);
    await expect.poll(() => found.locator('.user-models li').count(), { timeout: 30_000 }).toBe(3);
    const listed = await found.locator('.user-models li').allTextContents();
    expect(
      listed.some((m) => /tiny:latest · Ollama.*not supported yet: architecture mamba \(supported: /.test(m)),
    ).toBe(true);
    expect(listed.some((m) => /Tiny-Q4_K_M.*LM Studio/.test(m))).toBe(true);
    expect(listed.some((m) => /austen-copy/.test(m) && !/cannot load/.test(m))).toBe(true);
    await app.screenshot('add-model-discovered');
    expect(treeStamp(home)).toEqual(before); // read where they are: nothing written, moved or touched
    // The loadable copy in the Hugging Face cache is offered in the chat's model picker.
    await app.page.getByTestId('nav-chat').click();
    const options = await app.page.getByTestId('model-picker').locator('option').allTextContents();
    expect(options.some((o) => /austen-copy/.test(o))).toBe(true);
  });

  it('gets a GGUF from the hub in Add a model, lists it with its origin, and deletes it after a confirmation naming file and size', async () => {
    await app.page.getByTestId('nav-slots').click();
    const panel = app.page.getByTestId('add-model');
    await panel.getByTestId('hub-repo').fill('https://huggingface.co/someone/Tiny-GGUF');
    await panel.getByTestId('hub-look').click();
    const choice = panel.getByTestId('hub-choice');
    await choice.waitFor();
    expect(await choice.textContent()).toMatch(/^Tiny-Mamba-Q4_0GGUFQ4_0\d+ BDownload$/);
    await choice.getByRole('button', { name: 'Download' }).click();
    const done = panel.locator('[data-testid="hub-download"][data-state="done"]');
    await done.waitFor({ timeout: 30_000 });
    expect(await done.textContent()).toMatch(/(\d+) B of \1 B · done · checksum checked/);
    expect(await choice.textContent()).toMatch(/in the models folder$/);
    const listed = panel.locator('[data-testid="user-models"] li[data-model-id="Tiny-Mamba-Q4_0"]');
    await listed.waitFor({ timeout: 30_000 });
    expect(await listed.getByTestId('model-origin').textContent()).toMatch(
      /from someone\/Tiny-GGUF at 0123456/,
    );
    await app.screenshot('add-model-hub');
    // Escape keeps the file (and leaves Add a model open); asked again, the delete goes ahead.
    await listed.getByTestId('model-delete').click();
    await listed.getByTestId('model-delete-confirm').waitFor();
    await app.page.keyboard.press('Escape');
    await expect.poll(() => listed.getByTestId('model-delete-confirm').count()).toBe(0);
    await listed.getByTestId('model-delete').click();
    const confirm = listed.getByTestId('model-delete-confirm');
    expect(await confirm.textContent()).toMatch(/^Delete Tiny-Mamba-Q4_0\.gguf \(\d+ B\) from disk\?/);
    await confirm.getByTestId('model-delete-confirmed').click();
    // Deleting and the list's next read can take seconds on a loaded machine.
    await expect.poll(() => listed.count(), { timeout: 30_000 }).toBe(0);
    expect((await app.call('models.list', {})).some((m) => m.name === 'Tiny-Mamba-Q4_0')).toBe(false);
  });

  it('keyboard: Tab shows a focus ring on every control it reaches; Escape keeps what a confirmation asks about', async () => {
    await app.page.getByTestId('nav-slots').click();
    await app.page.getByTestId('nav-slots').focus();
    const unringed: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      await app.page.keyboard.press('Tab');
      const focused = (await app.page.evaluate(FOCUSED_RING)) as { name: string; hasRing: boolean } | null;
      if (focused && !focused.hasRing) unringed.push(focused.name);
    }
    expect(unringed).toEqual([]);
    // A conversation's delete, and Forget remembered context, close on Escape too.
    await app.page.getByTestId('nav-chat').click();
    await app.page.getByTestId('conversation-delete').first().click();
    await app.page.getByTestId('delete-confirm').waitFor();
    await app.page.keyboard.press('Escape');
    await expect.poll(() => app.page.getByTestId('delete-confirm').count()).toBe(0);
    await app.page.getByTestId('nav-settings').click();
    await app.page.getByTestId('forget-all-context').click();
    await app.page.getByTestId('forget-confirm').waitFor();
    await app.page.keyboard.press('Escape');
    await expect.poll(() => app.page.getByTestId('forget-confirm').count()).toBe(0);
  });

  it('errors from the hub (an overlong or unknown repository) and Forget are plain sentences, never schema text', async () => {
    const seen: string[] = [];
    await app.page.getByTestId('nav-slots').click();
    const panel = app.page.getByTestId('add-model');
    for (const repo of ['x'.repeat(600), 'someone/No-Such-Repo']) {
      await panel.getByTestId('hub-repo').fill(repo);
      await panel.getByTestId('hub-look').click();
      const error = panel.getByTestId('hub-downloads').locator('.notice.error');
      const before = seen.at(-1);
      await expect.poll(async () => (await error.allTextContents())[0] ?? before).not.toBe(before);
      seen.push((await error.textContent()) ?? '');
    }
    expect(seen[0]).toMatch(/too long \(at most 500 characters\)/);
    expect(seen[1]).toMatch(/No-Such-Repo/);
    await app.page.getByTestId('nav-settings').click();
    await app.page.getByTestId('forget-all-context').click();
    await app.page.getByTestId('forget-confirm-yes').click();
    const forgotten = app.page.getByTestId('remembered-context').locator('.notice');
    await forgotten.waitFor();
    seen.push((await forgotten.textContent()) ?? '');
    expect(seen.filter((text) => SCHEMA_TEXT.test(text))).toEqual([]);
    // The refusals arrive as HTTP errors, which the browser logs: these two are expected.
    expect(app.problems).toEqual([
      expect.stringMatching(/status of 400/),
      expect.stringMatching(/status of 503/),
    ]);
    app.problems.length = 0;
  });

  it('raised no console errors and no CSP violations', () => {
    expect(app.problems).toEqual([]);
  });
});

/** An Ollama store, an LM Studio folder and a Hugging Face cache under `home`, one model each. */
function fakeStores(home: string): void {
  const gguf = path.join(home, 'src', 'tiny.gguf');
  writeTinyGguf(gguf);
  writeOllamaModel(
    path.join(home, '.ollama', 'models'),
    ['registry.ollama.ai', 'library', 'tiny', 'latest'],
    [{ type: 'model', file: gguf }],
  );
  writeTinyGguf(path.join(home, '.lmstudio', 'models', 'someone', 'Tiny-GGUF', 'Tiny-Q4_K_M.gguf'));
  const bundled = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
  writeHfRepo(
    path.join(home, '.cache', 'huggingface', 'hub'),
    'first-frame/austen-copy',
    Object.fromEntries(files.map((f) => [f, path.join(bundled, f)])),
  );
}

/** One attribute of every element a locator matches, in document order. */
async function attributesOf(locator: Locator, name: string): Promise<(string | null)[]> {
  return Promise.all((await locator.all()).map((element) => element.getAttribute(name)));
}
