import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApiToggle } from '../../../../src-main/host/electron/api-toggle';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Runtime } from '../../../../src-main/runtime';
import { createOpenAiService } from '../../../../src-main/service/openai';
import type { OpenAiService } from '../../../../src-main/service/openai';
import { systemClock } from '../../../../src-main/telemetry/clock';

// The real OpenAI service over a runtime with no models: the toggle only starts and stops the server around it.
let runtime: Runtime;
let openai: OpenAiService;
beforeAll(async () => {
  runtime = await Runtime.create({ bundledModelsDir: mkdtempSync(path.join(os.tmpdir(), 'ff-no-models-')) });
  openai = createOpenAiService({ runtime, clock: systemClock });
});
afterAll(() => runtime.close());

describe('desktop API toggle', () => {
  it('is off by default, listens on 127.0.0.1 when turned on, and stops when turned off', async () => {
    const toggle = createApiToggle(openai, () => undefined);
    expect(toggle.status()).toMatchObject({ isEnabled: false, isToggleable: true, baseUrl: null });
    const on = await toggle.setEnabled({ isEnabled: true, port: 0, apiKey: 'secret-key-1' });
    expect(on.isEnabled).toBe(true);
    expect(on.hasApiKey).toBe(true);
    expect(on.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const refused = await fetch(`${on.baseUrl}/models`);
    expect(refused.status).toBe(401);
    const off = await toggle.setEnabled({ isEnabled: false });
    expect(off.isEnabled).toBe(false);
    await expect(fetch(`${on.baseUrl}/models`)).rejects.toThrow();
    await toggle.close();
  });

  it('says the port is in use instead of failing obscurely', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    const toggle = createApiToggle(openai, () => undefined);
    await expect(toggle.setEnabled({ isEnabled: true, port })).rejects.toThrow(`port ${port} is in use`);
    expect(toggle.status().isEnabled).toBe(false);
    blocker.close();
  });
});
