import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskReadText } from '../../src-renderer/views/chat/why-slow';
import { drawnParts, sendMessage, setSampling, setViewMode, waitForDone } from './chat-driver';
import type { E2eApp } from './harness';
import { startE2eApp } from './harness';

const OPENING =
  'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. '.repeat(
    10,
  );

describe('a conversation resumed after the app restarts', () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp();
    await setViewMode(app.page, 'expert');
    await setSampling(app.page, { temperature: 0, seed: 7, maxTokens: 4 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('reads its context from disk, and the bar and "why" say how much and how long', async () => {
    await waitForDone(await sendMessage(app.page, OPENING));
    await app.restart();
    await app.page.getByTestId('conversation-row').first().click();
    const answer = await sendMessage(app.page, 'Who said so?');
    const requestId = await waitForDone(answer);
    const timeline = (await app.call('timelines.recent', { limit: 10 })).find(
      (t) => t.requestId === requestId,
    )!;
    const diskRead = timeline.diagnosis?.diskRead;
    expect(diskRead?.numPages, 'pages read back from disk').toBeGreaterThan(0);
    expect(timeline.numCachedTokens).toBeGreaterThan(0);
    const { parts } = await drawnParts(answer);
    expect(parts.find((p) => p.phase === 'diskRead')?.ms).toBe(Number(diskRead!.readMs.toFixed(3)));
    await expect
      .poll(() => answer.getByTestId('why-slow').locator('li[data-kind="disk"]').textContent())
      .toBe(diskReadText(diskRead!));
    // While the host was down the page's reconnect attempts were refused: the only problem allowed.
    expect(app.problems.filter((p) => !p.includes('net::ERR_CONNECTION_REFUSED'))).toEqual([]);
  });
});
