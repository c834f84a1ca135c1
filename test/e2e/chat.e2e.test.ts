import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveBarParts } from '../../src-main/telemetry/timeline/derive';
import { TTFT_PARTS } from '../../src-main/telemetry/timeline/parts';
import {
  drawnParts,
  recordStreaming,
  sendMessage,
  setSampling,
  stopMidAnswer,
  streamedLengths,
  waitForDone,
  setViewMode,
} from './chat-driver';
import type { E2eApp } from './harness';
import { startE2eApp } from './harness';

const LONG_PROMPT =
  'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. '.repeat(
    12,
  );

describe('chat in a real browser on the bundled model', () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp();
    await setViewMode(app.page, 'expert');
    await setSampling(app.page, { temperature: 0.8, seed: 7, maxTokens: 160 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('streams an answer, then draws a TTFT bar proportional to the parts the service reports', async () => {
    await recordStreaming(app.page);
    const answer = await sendMessage(app.page, 'Tell me about Mr Darcy.');
    const requestId = await waitForDone(answer);
    const finalLength = ((await answer.locator('.message-text').textContent()) ?? '').length;
    const lengths = await streamedLengths(app.page);
    expect(finalLength).toBeGreaterThan(0);
    expect(
      lengths.some((length) => length < finalLength),
      `partial texts seen: ${lengths.join(', ')}`,
    ).toBe(true);
    const timeline = (await app.call('timelines.recent', { limit: 100 })).find(
      (t) => t.requestId === requestId,
    )!;
    expect(timeline.ttftMs).not.toBeNull();
    const { barWidthPx, parts } = await drawnParts(answer);
    // As the bar draws them: a read of remembered context from disk is its own part after queue.
    const barParts = deriveBarParts(timeline.parts, timeline.diagnosis?.diskRead);
    const expected: (readonly [string, number])[] = [
      ...TTFT_PARTS.flatMap((p): (readonly [string, number])[] =>
        p === 'queue'
          ? [
              ['queue', barParts.queue],
              ['diskRead', barParts.diskRead],
            ]
          : [[p, barParts[p]]],
      ),
      ['unattributed', timeline.unattributedMs] as const,
    ].filter(([, ms]) => ms > 0);
    expect(parts.map((p) => p.phase)).toEqual(expected.map(([phase]) => phase));
    const totalMs = expected.reduce((sum, [, ms]) => sum + ms, 0);
    for (const [i, [phase, ms]] of expected.entries()) {
      // The bar carries each part as `toFixed(3)`: a part ending in 5 at the fourth decimal rounds by 0.0005.
      expect(parts[i]!.ms, phase).toBe(Number(ms.toFixed(3)));
      expect(Math.abs(parts[i]!.widthPx - (ms / totalMs) * barWidthPx), `${phase} width`).toBeLessThanOrEqual(
        1.5,
      );
    }
    await answer.getByTestId('ttft-parts').locator('summary').click();
    const listed: (string | null)[] = [];
    for (const li of await answer.getByTestId('ttft-parts').locator('li').all())
      listed.push(await li.getAttribute('data-phase'));
    expect(listed, 'every part, however thin, is in the parts list').toEqual(
      expected.map(([phase]) => phase),
    );
    const clientMs = Number(await answer.getByTestId('client-ttft').getAttribute('data-ms'));
    expect(clientMs).toBeGreaterThanOrEqual(timeline.ttftMs!);
    await app.screenshot('chat');
  });

  it('a second turn reuses context pages: cached tokens > 0 and a shorter prefill', async () => {
    await app.page.getByTestId('chat-new').click();
    await setSampling(app.page, { maxTokens: 4 });
    const first = await sendMessage(app.page, LONG_PROMPT);
    await waitForDone(first);
    const second = await sendMessage(app.page, 'And then?');
    await waitForDone(second);
    expect(Number(await first.getByTestId('cached-tokens').getAttribute('data-value'))).toBe(0);
    expect(Number(await second.getByTestId('cached-tokens').getAttribute('data-value'))).toBeGreaterThan(0);
    const prefillMs = async (answer: typeof first) =>
      Number(await answer.getByTestId('ttft-part-prefill').getAttribute('data-ms'));
    expect(await prefillMs(second)).toBeLessThan(await prefillMs(first));
    await app.screenshot('chat-second-turn');
  });

  it('Stop mid-answer ends the stream and the request shows cancelled', async () => {
    // The model ends most answers within a few dozen tokens; write to max tokens so Stop lands mid-stream.
    const answer = await stopMidAnswer(app.page, 'button', { maxTokens: 1500, ignoreEos: true });
    expect(answer, 'an answer stopped mid-stream').not.toBeNull();
    const requestId = (await answer!.getAttribute('data-request-id'))!;
    const timeline = (await app.call('timelines.recent', { limit: 100 })).find(
      (t) => t.requestId === requestId,
    )!;
    expect(timeline.finishReason).toBe('cancelled');
    expect(timeline.numOutputTokens).toBeGreaterThan(0);
    expect(timeline.numOutputTokens).toBeLessThan(1500);
    expect(await app.page.getByTestId('chat-send').isVisible()).toBe(true);
    await app.screenshot('chat-cancelled');
  });

  it('keyboard: Shift+Enter adds a line, Enter sends, Escape stops', async () => {
    const input = app.page.getByTestId('chat-input');
    const numAnswers = await app.page.getByTestId('message-assistant').count();
    await input.fill('');
    await input.pressSequentially('Dear Jane,');
    await input.press('Shift+Enter');
    await input.pressSequentially('how are you?');
    expect(await input.inputValue()).toBe('Dear Jane,\nhow are you?');
    expect(await app.page.getByTestId('message-assistant').count()).toBe(numAnswers);
    await input.press('Enter');
    await waitForDone(app.page.getByTestId('message-assistant').nth(numAnswers));
    expect(await app.page.getByTestId('message-user').last().locator('.message-text').textContent()).toBe(
      'Dear Jane,\nhow are you?',
    );
    expect(
      await stopMidAnswer(app.page, 'escape', { maxTokens: 1500, ignoreEos: true }),
      'an answer stopped by Escape',
    ).not.toBeNull();
  });

  it('raised no console errors and no CSP violations', () => {
    expect(app.problems).toEqual([]);
  });
});
