import type { Locator, Page } from 'playwright-core';

/** One drawn TTFT segment: its phase, the ms it carries and its drawn width. */
export interface DrawnPart {
  phase: string;
  ms: number;
  widthPx: number;
}

/** Sampling values the e2e tests set through the conversation settings panel. */
export interface SamplingValues {
  temperature?: number;
  seed?: number;
  maxTokens?: number;
  ignoreEos?: boolean;
}

/** Opens the conversation settings panel (beside the chat) unless it is open already. */
export async function openSettings(page: Page): Promise<Locator> {
  const panel = page.getByTestId('settings-panel');
  if (!(await panel.isVisible())) await page.getByTestId('conversation-settings').click();
  await panel.waitFor();
  return panel;
}

/** Sets sampling in the open conversation's settings panel (the UI path a user takes). */
export async function setSampling(page: Page, values: SamplingValues): Promise<void> {
  const panel = await openSettings(page);
  const fields: [string, number | undefined][] = [
    ['temperature', values.temperature],
    ['seed', values.seed],
    ['max tokens', values.maxTokens],
  ];
  for (const [label, value] of fields) {
    if (value !== undefined) await panel.getByLabel(label, { exact: true }).fill(String(value));
  }
  if (values.ignoreEos !== undefined)
    await panel.getByLabel(/ignore end of turn/).setChecked(values.ignoreEos);
}

/** Types a message and presses Enter; returns the answer it starts (the newest one). */
export async function sendMessage(page: Page, text: string): Promise<Locator> {
  const before = await page.getByTestId('message-assistant').count();
  await page.getByTestId('chat-input').fill(text);
  // The composer recounts a new draft's tokens before Send comes back (after an over-long draft
  // it is off until then): wait for it rather than racing the count, but never wait forever.
  // (a locator, not waitForFunction: the page's CSP rightly refuses evaluating a string)
  const sendOn = page.locator('[data-testid="chat-send"]:not([disabled])');
  await sendOn.waitFor({ timeout: 10_000 }).catch(() => undefined);
  await page.getByTestId('chat-input').press('Enter');
  const answer = page.getByTestId('message-assistant').nth(before);
  await answer.waitFor();
  return answer;
}

/** Waits until an answer has its timeline (status done) and returns its request id. */
export async function waitForDone(answer: Locator, timeoutMs = 120_000): Promise<string> {
  await answer
    .locator('[data-testid="ttft-bar"], [data-testid="finish-reason"]')
    .first()
    .waitFor({ timeout: timeoutMs });
  await answer.and(answer.page().locator('[data-status="done"]')).waitFor({ timeout: timeoutMs });
  return (await answer.getAttribute('data-request-id')) ?? '';
}

// Runs in the page: logs the newest answer's status and text length on every DOM change, so
// a fast stream is observed frame by frame rather than by polling from outside.
const RECORD_TEXT = `(() => {
  window.__ffTextLog = [];
  new MutationObserver(() => {
    const answers = document.querySelectorAll('[data-testid="message-assistant"]');
    const last = answers[answers.length - 1];
    if (!last) return;
    const text = last.querySelector('.message-text')?.textContent ?? '';
    window.__ffTextLog.push({ status: last.dataset.status, length: text.length });
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
})()`;

/** Starts logging the newest answer's text as it changes (call before sending). */
export async function recordStreaming(page: Page): Promise<void> {
  await page.evaluate(RECORD_TEXT);
}

/** The distinct non-empty text lengths the newest answer showed while still streaming. */
export async function streamedLengths(page: Page): Promise<number[]> {
  const log = (await page.evaluate('window.__ffTextLog')) as { status: string; length: number }[];
  return [...new Set(log.filter((e) => e.status === 'streaming' && e.length > 0).map((e) => e.length))];
}

/** The segments of an answer's TTFT bar as drawn, and the bar's own width. */
export async function drawnParts(answer: Locator): Promise<{ barWidthPx: number; parts: DrawnPart[] }> {
  const bar = answer.getByTestId('ttft-bar');
  const barBox = await bar.boundingBox();
  const parts: DrawnPart[] = [];
  for (const segment of await bar.locator('[data-testid^="ttft-part-"]').all()) {
    const testId = (await segment.getAttribute('data-testid')) ?? '';
    const box = await segment.boundingBox();
    parts.push({
      phase: testId.replace('ttft-part-', ''),
      ms: Number(await segment.getAttribute('data-ms')),
      widthPx: box?.width ?? 0,
    });
  }
  return { barWidthPx: barBox?.width ?? 0, parts };
}

/**
 * Sends a long request and stops it once text is streaming, by the Stop button or Escape.
 * A small model can finish on its own before the stop lands; then it tries again (a new
 * prompt), up to `attempts` times. Returns the answer that ended `cancelled`, or null.
 */
export async function stopMidAnswer(
  page: Page,
  how: 'button' | 'escape',
  sampling: SamplingValues,
  attempts = 4,
): Promise<Locator | null> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    // A fresh conversation each time: a long history would not leave the model room to answer.
    await page.getByTestId('chat-new').click();
    await setSampling(page, sampling);
    const answer = await sendMessage(
      page,
      `Write a very long letter from Elizabeth to Jane, part ${attempt + 1}.`,
    );
    await answer.and(page.locator('[data-status="streaming"]')).waitFor({ timeout: 60_000 });
    if (how === 'button')
      await page
        .getByTestId('chat-stop')
        .click({ timeout: 2_000 })
        .catch(() => {});
    else await page.keyboard.press('Escape');
    await waitForDone(answer);
    if ((await answer.getAttribute('data-finish-reason')) === 'cancelled') return answer;
  }
  return null;
}

/** Switches Simple/Expert with the nav's switch and waits until the page reports the mode. */
export async function setViewMode(page: Page, mode: 'simple' | 'expert'): Promise<void> {
  await page
    .getByTestId('view-mode')
    .getByRole('button', { name: mode === 'simple' ? 'Simple' : 'Expert' })
    .click();
  await page.locator(`[data-testid="view-mode"][data-mode="${mode}"]`).waitFor();
}
