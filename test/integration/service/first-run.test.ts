import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { MethodInput, MethodName, MethodOutput } from '../../../src-main/service/contract/methods';
import type { Core } from '../../../src-main/service/core-options';
import { sendTurn } from '../../support/chat-turn';
import { createTestCore } from '../../support/core';
import { BUNDLED_MODEL_OLD_REF, BUNDLED_MODEL_REF } from '../../support/models';

describe('first run and everyday use: models folder, look, settings truth, runs, the window after a restart', () => {
  const dirs: string[] = [];
  const cores: Core[] = [];
  const start = async (dataDir: string) => {
    const core = await createTestCore(dataDir);
    cores.push(core);
    return core;
  };
  const newDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-first-run-'));
    dirs.push(dir);
    return dir;
  };
  const callOn =
    (core: Core) =>
    async <M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> => {
      const result = await core.service.call(method, input);
      if (!result.ok) throw new Error(`${method}: ${result.error.code} ${result.error.message}`);
      return result.value;
    };
  afterEach(async () => {
    for (const core of cores.splice(0)) await core.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('names the models folder by its absolute path and the formats that load; a headless host cannot open it', async () => {
    const dataDir = newDir();
    const core = await start(dataDir);
    const status = await callOn(core)('app.status', {});
    expect(status.modelsDir).toBe(path.join(dataDir, 'models'));
    expect(path.isAbsolute(status.modelsDir) && existsSync(status.modelsDir)).toBe(true);
    expect(status.modelFormats.map((f) => f.name)).toContain('Hugging Face ONNX folder');
    const opened = await core.service.call('app.openModelsFolder', {});
    expect(opened.ok ? null : opened.error).toMatchObject({ code: 'unavailable', message: /copy the path/ });
  });

  it('starts a new profile in Simple view on the system theme, and keeps a change across a restart', async () => {
    const dataDir = newDir();
    const core = await start(dataDir);
    expect(await callOn(core)('ui.preferences', {})).toEqual({ viewMode: 'simple', theme: 'system' });
    expect(await callOn(core)('ui.setPreferences', { viewMode: 'expert' })).toEqual({
      viewMode: 'expert',
      theme: 'system',
    });
    const refused = await core.service.call('ui.setPreferences', { theme: 'purple' } as never);
    expect(refused.ok).toBe(false);
    await cores.pop()!.close();
    const again = await start(dataDir);
    expect(await callOn(again)('ui.preferences', {})).toEqual({ viewMode: 'expert', theme: 'system' });
  });

  it('refuses a default model that is not installed, naming the ones that load, and changes nothing', async () => {
    const core = await start(newDir());
    const call = callOn(core);
    const before = (await call('settings.get', {})).settings;
    const refused = await core.service.call('settings.apply', { patch: { defaultModel: 'llama3' } });
    expect(refused.ok ? null : refused.error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^No model "llama3" is installed here; the models that load are .*ff-/),
    });
    expect((await call('settings.get', {})).settings).toEqual(before);
    const [model] = (await call('models.list', {})).filter((m) => m.error === null);
    const applied = await call('settings.apply', { patch: { defaultModel: model!.modelId } });
    expect(applied.settings.defaultModel).toBe(model!.modelId);
  });

  it('keeps a default model saved under a variant’s old id: accepted, and said as the id it names now', async () => {
    const dataDir = newDir();
    const applied = await callOn(await start(dataDir))('settings.apply', {
      patch: { defaultModel: BUNDLED_MODEL_OLD_REF },
    });
    expect(applied.settings.defaultModel).toBe(BUNDLED_MODEL_OLD_REF);
    await cores.pop()!.close();
    const again = callOn(await start(dataDir));
    expect((await again('settings.get', {})).settings.defaultModel).toBe(BUNDLED_MODEL_OLD_REF);
    expect((await again('app.status', {})).defaultModelId).toBe(BUNDLED_MODEL_REF);
  });

  it('renames and deletes a stored run; the delete removes its rows from SQLite', async () => {
    const dataDir = newDir();
    const core = await start(dataDir);
    const call = callOn(core);
    const { benchId } = await call('bench.start', { kind: 'load', numRequests: 2, ratePerS: 50 });
    await new Promise<void>((resolve) => {
      const off = core.service.subscribe((event) => {
        if (event.name !== 'bench.done' || event.payload.benchId !== benchId) return;
        off();
        resolve();
      });
    });
    const [run] = await call('runs.list', {});
    expect(run!.name).toMatch(/^Load test · ff-[\w-]+:\w+ · \d{1,2} \w{3} \d{4}, \d{2}:\d{2}$/);
    // The run records the weights it ran on, so Compare can tell runs on other weights apart.
    const [model] = (await call('models.list', {})).filter((m) => m.isBundled && m.isDefaultVariant);
    expect(run!.config.modelRevisions).toEqual({ [model!.modelId]: model!.modelRevision });
    expect((await call('runs.rename', { runId: run!.runId, name: '  Two quick ones ' })).name).toBe(
      'Two quick ones',
    );
    const deleted = await call('runs.delete', { runId: run!.runId });
    expect(deleted).toEqual({ isDeleted: true, numRequests: 2 });
    expect(await call('runs.list', {})).toEqual([]);
    const db = new Database(path.join(dataDir, 'history.sqlite'), { readonly: true });
    const count = (sql: string) => (db.prepare(sql).get(run!.runId) as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM runs WHERE id = ?')).toBe(0);
    expect(count('SELECT count(*) AS n FROM requests WHERE run_id = ?')).toBe(0);
    db.close();
    const missing = await core.service.call('runs.delete', { runId: run!.runId });
    expect(missing.ok ? null : missing.error.code).toBe('not_found');
  });

  it('reloads the recent window from the history after a restart, so the dashboard is not empty', async () => {
    const dataDir = newDir();
    const core = await start(dataDir);
    const { conversationId } = await callOn(core)('chat.createConversation', {});
    const { requestId } = await sendTurn(core, conversationId, 'Good morning.');
    await cores.pop()!.close();
    const again = await start(dataDir);
    const recent = await callOn(again)('timelines.recent', { limit: 100 });
    expect(recent.map((t) => t.requestId)).toEqual([requestId]);
    expect((await callOn(again)('report.live', {})).numRequests).toBe(1);
  });
});
