import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer } from '../../../src-main/host/openai/standalone-server';
import type { OpenAiServer } from '../../../src-main/host/openai/standalone-server';
import type { Core } from '../../../src-main/service/core-options';
import { createTestCore } from '../../support/core';
import { TEST_MODEL_ID } from '../../support/runtime';

/** API requests are timelines like any other: in the live window (dashboard) and the report. */
describe('the OpenAI service inside the core', () => {
  let dataDir: string;
  let core: Core;
  let server: OpenAiServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-openai-core-'));
    core = await createTestCore(dataDir);
    server = await startOpenAiServer({ openai: core.openai });
  });
  afterAll(async () => {
    await server.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows API requests in the live window and the report', async () => {
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'none', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: TEST_MODEL_ID,
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 4,
      temperature: 0,
    });
    const recent = await core.service.call('timelines.recent', { limit: 10 });
    expect(recent.ok && recent.value.some((t) => t.requestId === completion.id)).toBe(true);
    const report = await core.service.call('report.live', {});
    expect(report.ok && report.value.numRequests).toBeGreaterThan(0);
  });
});
