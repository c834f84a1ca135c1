import { describe, expect, it } from 'vitest';
import { placeServerSpan } from '../../../../src-main/runtime/remote/placement';
import type { ClientStamps } from '../../../../src-main/runtime/remote/observation';

const stamps = (over: Partial<ClientStamps>): ClientStamps => ({
  sentAt: 1000,
  headersAt: null,
  firstByteAt: null,
  firstContentAt: 1100,
  lastChunkAt: 1200,
  endedAt: 1200,
  ...over,
});

describe('placing server stamps on the client clock', () => {
  it('puts the span in the middle of the window the client stamps allow, uncertainty half the window', () => {
    expect(placeServerSpan(stamps({}), 60)).toEqual({ isPlaced: true, arrivalAt: 1020, uncertaintyMs: 20 });
  });

  it('response headers bound the arrival: the server answered after it received the request', () => {
    expect(placeServerSpan(stamps({ headersAt: 1010 }), 20)).toEqual({
      isPlaced: true,
      arrivalAt: 1005,
      uncertaintyMs: 5,
    });
  });

  it('a span longer than the client waited cannot be placed in order: flagged, not forced', () => {
    const placed = placeServerSpan(stamps({}), 150);
    expect(placed.isPlaced).toBe(false);
    expect(placed.isPlaced ? '' : placed.reason).toMatch(/cannot be placed in order/);
  });

  it('no content means nothing to place against', () => {
    expect(placeServerSpan(stamps({ firstContentAt: null }), 5).isPlaced).toBe(false);
  });
});
