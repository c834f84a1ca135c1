import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { heavyArraysGguf } from '../../support/hostile-gguf';
import { chat, createTestRuntime, expectNothingHeld, generate } from '../../support/runtime';

describe('listing a hostile file while serving', () => {
  let dir = '';
  let runtime: Runtime;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-listing-serving-'));
    runtime = await createTestRuntime({ userModelsDir: dir });
    await generate(runtime, { prompt: chat('Hello.'), maxTokens: 2 });
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a chat on the bundled model before the file is listed, then lists the file as broken', async () => {
    heavyArraysGguf(dir, 1);
    let isListed = false;
    const refreshing = runtime.refreshModels().then((entries) => {
      isListed = true;
      return entries;
    });
    const answer = await generate(runtime, { prompt: chat('Hello again.'), maxTokens: 2 });
    expect(answer.tokenIds.length).toBeGreaterThan(0);
    expect(isListed).toBe(false);
    const heavy = (await refreshing).find((e) => e.name === 'heavy');
    expect(heavy?.status).toBe('broken');
    expectNothingHeld(runtime);
  });
});
