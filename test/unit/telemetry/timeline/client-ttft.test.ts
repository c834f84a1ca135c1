import { describe, expect, it } from 'vitest';
import {
  CLIENT_CLOCK_TOLERANCE_MS,
  judgeClientTtft,
} from '../../../../src-main/telemetry/timeline/client-ttft';

describe('a client TTFT entering the system', () => {
  it('is accepted at or above the server TTFT, with transport = client − server', () => {
    expect(judgeClientTtft(40, 55)).toEqual({ isAccepted: true, transportMs: 15 });
    expect(judgeClientTtft(40, 40)).toEqual({ isAccepted: true, transportMs: 0 });
  });

  it('is accepted a little below the server figure, within the client clock coarsening', () => {
    const verdict = judgeClientTtft(40, 40 - CLIENT_CLOCK_TOLERANCE_MS / 2);
    expect(verdict).toEqual({ isAccepted: true, transportMs: -CLIENT_CLOCK_TOLERANCE_MS / 2 });
  });

  it('is refused as a broken measurement when it is below the server TTFT', () => {
    expect(judgeClientTtft(40, 30)).toEqual({
      isAccepted: false,
      reason: expect.stringMatching(
        /^broken client measurement: client TTFT 30\.000 ms is below server TTFT 40\.000 ms/,
      ),
    });
  });

  it('is refused for a request that never produced a token, and for a value that is not a duration', () => {
    expect(judgeClientTtft(null, 30)).toMatchObject({
      isAccepted: false,
      reason: expect.stringContaining('no TTFT'),
    });
    expect(judgeClientTtft(40, Number.NaN)).toMatchObject({ isAccepted: false });
    expect(judgeClientTtft(40, -1)).toMatchObject({ isAccepted: false });
  });
});
