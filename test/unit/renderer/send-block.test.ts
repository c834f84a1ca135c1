import { describe, expect, it } from 'vitest';
import { INPUT_LIMITS } from '../../../src-main/limits';
import type { SendForecast } from '../../../src-main/service/contract';
import { sendBlockOf } from '../../../src-renderer/views/chat/send-block';

const forecast = (numPromptTokens: number, promptLimit: number) =>
  ({ numPromptTokens, promptLimit, remote: null }) as unknown as SendForecast;

describe('whether the composer lets a draft be sent', () => {
  it('lets a draft that fits be sent', () => {
    expect(sendBlockOf('Hello', forecast(40, 1000))).toBeNull();
    expect(sendBlockOf('Hello', null)).toBeNull();
  });

  it('stops a draft over the message limit before any request, in words, not schema text', () => {
    const block = sendBlockOf('x'.repeat(INPUT_LIMITS.maxMessageChars + 1), null);
    expect(block).toMatch(/^This message is 200,001 characters; one message holds at most 200,000\./);
    expect(block).not.toMatch(/expected|string|<=/);
  });

  it('stops a draft whose prompt cannot fit even with older turns left out', () => {
    expect(sendBlockOf('long', forecast(5000, 1000))).toMatch(
      /^This message does not fit: the prompt would be 5,000 tokens and this model reads at most 1,000/,
    );
  });

  it('leaves fitting a remote model to its server', () => {
    const remote = {
      numPromptTokens: 5000,
      promptLimit: 1000,
      remote: { note: '' },
    } as unknown as SendForecast;
    expect(sendBlockOf('long', remote)).toBeNull();
  });
});
