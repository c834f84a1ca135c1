import { describe, expect, it } from 'vitest';
import {
  deriveClientFigures,
  deriveItl,
  deriveRemote,
  deriveServerSpanMs,
  placeServerSpan,
} from '../../../../src-main/telemetry/timeline/derive';
import type { ClientStamps } from '../../../../src-main/telemetry/timeline/remote-facts';

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

describe('the server span', () => {
  it('is the server TTFT when reported, else the sum of the parts it reported', () => {
    expect(deriveServerSpanMs({ parts: { queue: 5, prefill: 20 }, ttftMs: 31 })).toBe(31);
    expect(deriveServerSpanMs({ parts: { queue: 5, prefill: 20 }, ttftMs: null })).toBe(25);
    expect(deriveServerSpanMs({ parts: {}, ttftMs: null })).toBe(0);
  });
});

describe('a remote timeline derived from the client stamps and the server report', () => {
  // Sent at 1000; headers 1004, first byte 1006; content at 1100, 1130, 1170; the stream ends at 1180.
  const seen = stamps({ headersAt: 1004, firstByteAt: 1006, lastChunkAt: 1175, endedAt: 1180 });
  const contentAts = [1100, 1130, 1170];

  it('names each interval from its own stamps: TTFT, E2E, client E2E, gaps and durations since the send', () => {
    const d = deriveRemote(seen, contentAts, { parts: {}, ttftMs: null });
    expect(d).toMatchObject({
      ttftMs: 100,
      clientTtftMs: 100,
      e2eMs: 180,
      clientE2eMs: 170,
      itlMs: [30, 40],
    });
    expect(d.stampFacts).toMatchObject({
      headersMs: 4,
      firstByteMs: 6,
      firstContentMs: 100,
      lastChunkMs: 175,
    });
  });

  it('lays the reported parts end to end from the placed arrival; the rest of TTFT is unattributed', () => {
    // Span 30 ms: arrival between the send and min(headers 1004, 1100 − 30): 1002 ± 2.
    const d = deriveRemote(seen, contentAts, { parts: { queue: 10, prefill: 20 }, ttftMs: null });
    expect(d.parts).toMatchObject({ queue: 10, prefill: 20, inbox: 0 });
    expect(d.unattributedMs).toBe(70);
    expect(d.transitions).toEqual([
      { state: 'queue', at: 1002 },
      { state: 'prefill', at: 1012 },
      { state: 'decode', at: 1100 },
    ]);
    expect(d.stampFacts).toMatchObject({
      placedArrivalMs: 2,
      placementUncertaintyMs: 2,
      placementProblem: null,
    });
  });

  it('leaves the parts out, with the reason, when the server says it took longer than the client waited', () => {
    const d = deriveRemote(seen, contentAts, { parts: { prefill: 120 }, ttftMs: null });
    expect(d.parts.prefill).toBe(0);
    expect(d.unattributedMs).toBe(100);
    expect(d.transitions).toEqual([]);
    expect(d.stampFacts.placementProblem).toMatch(/cannot be placed in order/);
  });

  it('with no content, TTFT is unknown and the whole life until the end is unattributed', () => {
    const d = deriveRemote(stamps({ firstContentAt: null, lastChunkAt: null, endedAt: 1005 }), [], {
      parts: { prefill: 1 },
      ttftMs: null,
    });
    expect(d).toMatchObject({ ttftMs: null, clientE2eMs: null, e2eMs: 5, unattributedMs: 5, itlMs: [] });
    expect(d.stampFacts.placementProblem).toBeNull();
  });
});

describe("a client's figures from its own stamps", () => {
  const seen = { sentAt: 1000, firstContentAt: 1100, lastContentAt: 1170 };

  it('TTFT to the first content, E2E to the last, network in to the server arrival on the same clock', () => {
    expect(deriveClientFigures(seen, 1003)).toEqual({ clientTtftMs: 100, clientE2eMs: 170, networkInMs: 3 });
  });

  it('no network split when the server arrival is on another clock; nothing when no content came', () => {
    expect(deriveClientFigures(seen, null).networkInMs).toBeNull();
    expect(deriveClientFigures({ sentAt: 1000, firstContentAt: null, lastContentAt: null }, null)).toEqual({
      clientTtftMs: null,
      clientE2eMs: null,
      networkInMs: null,
    });
  });
});

describe('inter-token gaps at the source', () => {
  it('measures between the stamps where each token was produced, else between flushes', () => {
    expect(deriveItl([10, 14, 19], [12, 30, 31])).toEqual([4, 5]);
    // A token without its producing stamp: every gap comes from the flushes.
    expect(deriveItl([10, 14], [12, 30, 31])).toEqual([18, 1]);
  });
});
