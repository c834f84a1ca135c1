import { describe, expect, it } from 'vitest';
import { fitChat } from '../../../../src-main/runtime/forecast/fit-chat';
import type { ChatTurn } from '../../../../src-main/runtime/tokenize/tokenizer';

// One token per character plus one per turn: easy to reason about, and the fitting only ever
// sees lengths.
const encode = (turns: readonly ChatTurn[]) =>
  turns.flatMap((t) => [0, ...[...t.content].map((c) => c.charCodeAt(0))]);
const turn = (role: ChatTurn['role'], size: number): ChatTurn => ({ role, content: 'x'.repeat(size) });
const limits = { maxPromptTokens: 4096, maxPositions: 100, answerReserve: 20 };

describe('fitting a chat to the context', () => {
  it('sends everything when prompt plus the answer reserve fits', async () => {
    const turns = [turn('system', 9), turn('user', 9), turn('assistant', 9), turn('user', 9)];
    const fit = await fitChat(encode, turns, limits, 'drop-oldest');
    expect(fit).toMatchObject({ numDroppedMessages: 0, refusal: null, promptLimit: 99 });
    expect(fit.promptIds).toHaveLength(40);
  });

  it('drops whole exchanges from the oldest, never the system prompt or the newest turn', async () => {
    const turns = [
      turn('system', 9),
      turn('user', 19),
      turn('assistant', 19),
      turn('user', 19),
      turn('assistant', 19),
      turn('user', 9),
    ];
    const fit = await fitChat(encode, turns, limits, 'drop-oldest');
    expect(fit.numDroppedMessages).toBe(2);
    expect(fit.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(fit.promptIds.length).toBeLessThanOrEqual(80);
  });

  it('refuses a newest turn that cannot fit even alone, naming its size', async () => {
    const fit = await fitChat(
      encode,
      [turn('user', 9), turn('assistant', 9), turn('user', 150)],
      limits,
      'drop-oldest',
    );
    expect(fit.refusal?.kind).toBe('message-too-long');
    expect(fit.refusal?.message).toMatch(/^This message is 151 tokens; the model holds at most 99/);
  });

  it('with "refuse", a conversation over the limit is refused rather than trimmed', async () => {
    const turns = [turn('user', 49), turn('assistant', 49), turn('user', 9)];
    const fit = await fitChat(encode, turns, limits, 'refuse');
    expect(fit.refusal?.kind).toBe('conversation-too-long');
    expect(fit.numDroppedMessages).toBe(0);
  });

  it('keeps just the newest turn when it fits only without the answer reserve', async () => {
    const fit = await fitChat(
      encode,
      [turn('user', 9), turn('assistant', 9), turn('user', 90)],
      limits,
      'drop-oldest',
    );
    expect(fit).toMatchObject({ numDroppedMessages: 2, refusal: null });
  });
});

describe('fitting a chat bounds the tokenizer by characters first', () => {
  // promptLimit 99 tokens → at most 99 × 32 = 3,168 characters can ever fit.
  const counting = () => {
    const seen: number[] = [];
    const counted = (turns: readonly ChatTurn[]) => {
      seen.push(turns.reduce((n, t) => n + t.content.length, 0));
      return encode(turns);
    };
    return { seen, counted };
  };

  it('refuses a newest turn longer than any token count could hold, without tokenizing anything', async () => {
    const { seen, counted } = counting();
    const fit = await fitChat(
      counted,
      [turn('user', 9), turn('assistant', 9), turn('user', 4_000)],
      limits,
      'drop-oldest',
    );
    expect(seen).toEqual([]);
    expect(fit.refusal).toMatchObject({
      kind: 'message-too-long',
      message: expect.stringMatching(/at least 125 tokens/),
    });
  });

  it('drops older turns that cannot fit by characters before the tokenizer sees them', async () => {
    const { seen, counted } = counting();
    const turns = [
      turn('user', 2_000),
      turn('assistant', 2_000),
      turn('user', 30),
      turn('assistant', 30),
      turn('user', 9),
    ];
    const fit = await fitChat(counted, turns, limits, 'drop-oldest');
    expect(Math.max(...seen)).toBeLessThanOrEqual(3_168);
    expect(fit.numDroppedMessages).toBe(2);
    expect(fit.messages.map((m) => m.content.length)).toEqual([30, 30, 9]);
  });

  it('drops older turns beyond the count the prompt limit can hold before the tokenizer sees them', async () => {
    const seenCounts: number[] = [];
    const counted = (turns: readonly ChatTurn[]) => {
      seenCounts.push(turns.length);
      return encode(turns);
    };
    // 1,000 one-character turns: 2 tokens each here, but no template gives a turn fewer than one.
    const turns = Array.from({ length: 1_000 }, (_, i) => turn(i % 2 === 0 ? 'user' : 'assistant', 1));
    const fit = await fitChat(counted, [...turns, turn('user', 1)], limits, 'drop-oldest');
    expect(Math.max(...seenCounts)).toBeLessThanOrEqual(99);
    expect(fit.refusal).toBeNull();
    expect(fit.promptIds.length).toBeLessThanOrEqual(80);
  });

  it('refuses, with `refuse`, a conversation longer than any token count could hold, unread', async () => {
    const { seen, counted } = counting();
    const fit = await fitChat(
      counted,
      [turn('user', 3_000), turn('assistant', 300), turn('user', 9)],
      limits,
      'refuse',
    );
    expect(seen).toEqual([]);
    expect(fit.refusal?.kind).toBe('conversation-too-long');
  });
});
