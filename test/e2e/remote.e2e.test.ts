import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_REF } from '../support/models';
import type { ApiFixture } from '../integration/openai/api-server';
import { startApiFixture } from '../integration/openai/api-server';
import { sendMessage, setSampling, waitForDone } from './chat-driver';
import type { E2eApp } from './harness';
import { startE2eApp } from './harness';

const KEY = 'sk-e2e-remote-0001';

describe('a remote endpoint in a real browser (a second First Frame host)', () => {
  let app: E2eApp;
  let second: ApiFixture;
  beforeAll(async () => {
    second = await startApiFixture({ apiKey: KEY });
    app = await startE2eApp();
  });
  afterAll(async () => {
    await app?.close();
    await second?.close();
  });

  it('a file:// URL is refused with the reason, and nothing is added', async () => {
    await app.page.getByTestId('nav-slots').click();
    const form = app.page.getByTestId('endpoints-panel').getByTestId('endpoint-form');
    await form.getByLabel('Name').fill('Files');
    await form.getByLabel('Base URL').fill('file:///etc/passwd');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form.getByText(/only http:\/\/ and https:\/\//).waitFor();
    expect(await app.call('endpoints.list', {})).toEqual([]);
    // The refusal is the call's 400 (invalid input), which the browser logs; nothing else.
    expect(app.problems).toEqual([expect.stringMatching(/status of 400/)]);
    app.problems.length = 0;
  });

  it('checks an endpoint before saving: a wrong key shows the 401 in the form and saves nothing; Save anyway keeps it', async () => {
    const form = app.page.getByTestId('endpoints-panel').getByTestId('endpoint-form');
    await form.getByLabel('Name').fill('Wrong key');
    await form.getByLabel('Base URL').fill(second.server.baseUrl);
    await form.getByLabel('Key').fill('sk-not-the-key-0000');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const error = form.getByTestId('endpoint-form-error');
    await expect
      .poll(() => error.textContent())
      .toMatch(/^Nothing was saved: .* failed its check \(HTTP 401/);
    expect(await app.call('endpoints.list', {})).toEqual([]);
    await app.screenshot('slots-endpoint-refused');
    await error.getByRole('button', { name: 'Save anyway' }).click();
    const card = app.page.locator('[data-testid="endpoint-card"][data-reachability="unreachable"]');
    await card.waitFor();
    expect(await card.textContent()).not.toMatch(/answered in/);
    await card.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(async () => (await app.call('endpoints.list', {})).length).toBe(0);
    // The refused add is the call's 503, which the browser logs; nothing else.
    expect(app.problems).toEqual([expect.stringMatching(/status of 503/)]);
    app.problems.length = 0;
  });

  it('adds the second host from Slots: reachable, its models listed, the key never shown', async () => {
    const form = app.page.getByTestId('endpoints-panel').getByTestId('endpoint-form');
    await form.getByLabel('Name').fill('Second host');
    await form.getByLabel('Base URL').fill(second.server.baseUrl);
    await form.getByLabel('Key').fill(KEY);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const card = app.page.locator('[data-testid="endpoint-card"][data-reachability="reachable"]');
    await card.waitFor();
    expect(await card.getByTestId('remote-models').textContent()).toContain(BUNDLED_MODEL_REF);
    expect(await app.page.content()).not.toContain(KEY);
    await app.screenshot('slots-remote');
  });

  it('chats through a remote slot picked in the model picker: the answer shows the client-boundary bar', async () => {
    await app.page.getByTestId('nav-chat').click();
    const modelId = `@second-host/${BUNDLED_MODEL_REF}`;
    await app.page.getByTestId('model-picker').selectOption(modelId);
    await setSampling(app.page, { temperature: 0, maxTokens: 6 });
    const answer = await sendMessage(app.page, 'Good morning!');
    const requestId = await waitForDone(answer);
    const stats = answer.getByTestId('remote-answer-stats');
    await stats.waitFor();
    expect(await stats.getAttribute('data-endpoint')).toBe('second-host');
    expect(await stats.getByTestId('remote-report').textContent()).toMatch(
      /Second host \(first-frame\) reported every part of its TTFT/,
    );
    await stats.getByTestId('ttft-bar').waitFor();
    const [timeline] = (await app.call('timelines.recent', { limit: 50 })).filter(
      (t) => t.requestId === requestId,
    );
    expect(timeline?.remote?.reportSource).toBe('first-frame-timings');
    await app.screenshot('chat-remote');
  });

  it('a wrong key shows the 401 on the endpoint card; the page logs no problem', async () => {
    await app.call('endpoints.remove', { endpointId: 'second-host' });
    await app.call('endpoints.add', {
      name: 'Second host',
      baseUrl: second.server.baseUrl,
      apiKey: 'sk-wrong-key-0000',
      engine: 'auto',
      saveUnreachable: true,
    });
    await app.page.getByTestId('nav-slots').click();
    await app.page.locator('[data-testid="endpoint-card"][data-reachability="unreachable"]').waitFor();
    expect(await app.page.getByTestId('endpoint-error').textContent()).toMatch(/HTTP 401/);
    expect(app.problems).toEqual([]);
  });
});
