import { createServer } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { createApiToggle } from '../../../../src-main/host/electron/api-toggle';
import type { ApiEnableRequest } from '../../../../src-main/host/electron/api-toggle';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Runtime } from '../../../../src-main/runtime/runtime';
import { createOpenAiService } from '../../../../src-main/service/openai/service';
import type { OpenAiService } from '../../../../src-main/service/openai/types';
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
    const toggle = createApiToggle(
      openai,
      () => undefined,
      async () => true,
    );
    expect(toggle.status()).toMatchObject({
      isEnabled: false,
      isToggleable: true,
      baseUrl: null,
      port: 11435,
    });
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
    const toggle = createApiToggle(
      openai,
      () => undefined,
      async () => true,
    );
    await expect(toggle.setEnabled({ isEnabled: true, port })).rejects.toThrow(`port ${port} is in use`);
    expect(toggle.status().isEnabled).toBe(false);
    blocker.close();
  });

  it('turns on only after the user confirms, showing the port and whether a key is set', async () => {
    const asked: ApiEnableRequest[] = [];
    let answer = false;
    const confirm = vi.fn(async (request: ApiEnableRequest) => (asked.push(request), answer));
    const toggle = createApiToggle(openai, () => undefined, confirm);
    await expect(toggle.setEnabled({ isEnabled: true, port: 0, apiKey: null })).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/stays off: turning it on was not confirmed/),
    });
    expect(toggle.status().isEnabled).toBe(false);
    expect(asked).toEqual([{ baseUrl: 'http://127.0.0.1:(any free port)/v1', port: 0, hasApiKey: false }]);
    answer = true;
    const on = await toggle.setEnabled({ isEnabled: true, port: 0, apiKey: 'secret-key-2' });
    expect(on).toMatchObject({ isEnabled: true, hasApiKey: true });
    expect(asked[1]).toMatchObject({ hasApiKey: true });
    await toggle.setEnabled({ isEnabled: false });
    expect(confirm).toHaveBeenCalledTimes(2); // turning off asks nothing
    await toggle.close();
  });
});
