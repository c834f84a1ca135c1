import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledGguf } from '../support/gguf-fixtures';
import { peersSkipReason } from '../support/llama-peers';
import { sendMessage, setSampling, waitForDone } from './chat-driver';
import type { E2eApp } from './harness';
import { startE2eApp } from './harness';

// A new user's Q4_K_M GGUF (llama.cpp's quantizer, from the bundled model) in the models folder:
// picked in Chat, converted on its first message, answered from, and its slot card says what it is.

const MODEL_ID = 'austen-q4_k_m:gguf';

describe.skipIf(peersSkipReason !== null)('a GGUF model in the app', () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp({ userModels: { 'austen-q4_k_m.gguf': bundledGguf('q4_k_m') } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is offered in the model picker, answers a chat, and its slot card says it was converted from GGUF and how', async () => {
    const models = await app.call('models.list', {});
    expect(models.find((m) => m.modelId === MODEL_ID)).toMatchObject({ format: 'gguf', error: null });
    await app.page.getByTestId('model-picker').selectOption(MODEL_ID);
    await setSampling(app.page, { temperature: 0, seed: 1, maxTokens: 24 });
    const answer = await sendMessage(app.page, 'Tell me about the ball.');
    await waitForDone(answer);
    expect(((await answer.locator('.message-text').textContent()) ?? '').trim().length).toBeGreaterThan(0);

    await app.page.getByTestId('nav-slots').click();
    const card = app.page.locator(`[data-testid="slot-card"][data-model-id="${MODEL_ID}"]`);
    await card.waitFor();
    expect(await card.getByTestId('slot-weights-origin').textContent()).toMatch(
      /GGUF q4_k_m, converted to ONNX: every block kept exactly as the file stores it/,
    );
    expect(await card.getByTestId('slot-provider').textContent()).toMatch(/^int8 \+ int4( \+ fp32)? · cpu/);
    expect(await card.getByTestId('slot-conversion').count()).toBe(0); // done: no progress line left
    await app.screenshot('slots-gguf');
  });

  it('raised no console errors and no CSP violations', () => {
    expect(app.problems).toEqual([]);
  });
});
