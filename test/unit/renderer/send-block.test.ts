import { describe, expect, it } from 'vitest';
import { INPUT_LIMITS } from '../../../src-main/limits';
import type { SendForecast } from '../../../src-main/service/contract/chat-schemas';
import { sendBlockOf } from '../../../src-renderer/views/chat/send-block';

const forecast = (refusal: string | null) => ({ refusal, remote: null }) as unknown as SendForecast;

describe('whether the composer lets a draft be sent', () => {
  it('lets a draft that fits be sent', () => {
    expect(sendBlockOf('Hello', forecast(null))).toBeNull();
    expect(sendBlockOf('Hello', null)).toBeNull();
  });

  it('stops a draft over the message limit before any request, in words, not schema text', () => {
    const block = sendBlockOf('x'.repeat(INPUT_LIMITS.maxMessageChars + 1), null);
    expect(block).toMatch(/^This message is 200,001 characters; one message holds at most 200,000\./);
    expect(block).not.toMatch(/expected|string|<=/);
  });

  it("says the forecast's refusal when the model's context cannot hold the message", () => {
    const refusal =
      'This message is 5,000 tokens; the model holds at most 1,000. Nothing was sent or stored: shorten it or split it.';
    expect(sendBlockOf('long', forecast(refusal))).toBe(refusal);
  });
});
