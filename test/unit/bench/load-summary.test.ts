import { describe, expect, it } from 'vitest';
import { parseLoadArgs } from '../../../bench/load/args';
import type { ClientObservation } from '../../../bench/load/client';
import type { RequestRecord } from '../../../bench/load/driver';
import { SseDataParser } from '../../../bench/load/sse';
import { percentiles, summarize } from '../../../bench/load/summary';

function record(seen: Partial<ClientObservation>, index = 0): RequestRecord {
  const base: ClientObservation = {
    httpStatus: 200,
    sentAt: 0,
    chunkAts: [],
    doneAt: 0,
    text: '',
    requestId: `r${index}`,
    finishReason: 'length',
    usage: null,
    timings: null,
    errorMessage: null,
  };
  return {
    planned: {
      index,
      conversationId: 'c',
      turn: 1,
      parentIndex: null,
      numUserTokens: 1,
      maxTokens: 1,
      textSeed: 1,
    },
    scheduledMs: 0,
    sentMs: 0,
    seen: { ...base, ...seen },
    remote: null,
  };
}

describe('load lab: parsing the stream and summarising', () => {
  it('splits server-sent events across arbitrary network reads', () => {
    const parser = new SseDataParser();
    expect(parser.push('data: {"a"')).toEqual([]);
    expect(parser.push(':1}\n\n: keep-alive\n\ndata: [DO')).toEqual(['{"a":1}']);
    expect(parser.push('NE]\r\n\r\n')).toEqual(['[DONE]']);
  });

  it('uses nearest-rank percentiles', () => {
    expect(percentiles([5, 1, 4, 2, 3, Number.NaN])).toEqual({
      n: 5,
      p50: 3,
      p90: 5,
      p95: 5,
      p99: 5,
      mean: 3,
    });
    expect(percentiles([])).toMatchObject({ n: 0, p50: null, mean: null });
  });

  it('computes client/server TTFT, transport, ITL, rejected share, throughput and goodput', () => {
    const ok = (i: number, ttft: number, gaps: number[]) => {
      const chunkAts = [ttft];
      for (const gap of gaps) chunkAts.push(chunkAts.at(-1)! + gap);
      return record(
        {
          chunkAts,
          doneAt: chunkAts.at(-1)! + 1,
          timings: { ttft_ms: ttft - 2, prefill_ms: 4 },
          usage: {
            prompt_tokens: 10,
            completion_tokens: chunkAts.length,
            prompt_tokens_details: { cached_tokens: 5 },
          },
        },
        i,
      );
    };
    const records = [
      ok(0, 10, [5, 5]),
      ok(1, 30, [5, 50]),
      record({ httpStatus: 429, finishReason: null, errorMessage: 'full', doneAt: 2 }, 2),
      record({ httpStatus: 500, finishReason: null, errorMessage: 'boom', doneAt: 3 }, 3),
    ];
    const summary = summarize(records, { ttftMs: 20, itlMs: 20 });
    expect(summary).toMatchObject({
      numSent: 4,
      numOk: 2,
      numRejected: 1,
      numErrors: 1,
      rejectedShare: 0.25,
      cachedTokenShare: 0.5,
    });
    expect(summary.clientTtftMs).toMatchObject({ n: 2, p50: 10, p95: 30 });
    expect(summary.serverTtftMs).toMatchObject({ p50: 8, p95: 28 });
    expect(summary.transportMs).toMatchObject({ p50: 2, p95: 2 });
    expect(summary.clientItlMs).toMatchObject({ n: 4, p50: 5, p95: 50 });
    expect(summary.windowS).toBeCloseTo(0.086, 6);
    expect(summary.outputTokensPerS).toBeCloseTo(6 / 0.086, 6);
    expect(summary.partMeansMs['prefill_ms']).toBe(4);
    expect(summary.goodput).toMatchObject({ numGood: 1, goodShare: 0.25 });
  });

  it('parses the CLI, refusing what does not fit', () => {
    const config = parseLoadArgs([
      '--profile',
      'sweep',
      '--rates',
      '1,2.5',
      '--slo-ttft',
      '200',
      '--slo-itl',
      '50',
      '--no-store',
      '--url',
      'http://127.0.0.1:5180/v1/',
    ]);
    expect(config).toMatchObject({
      profile: 'sweep',
      rates: [1, 2.5],
      slo: { ttftMs: 200, itlMs: 50 },
      dataDir: null,
      url: 'http://127.0.0.1:5180/v1',
    });
    expect(parseLoadArgs(['--profile', 'burst']).rates).toEqual([null]);
    expect(() => parseLoadArgs(['--profile', 'zigzag'])).toThrow(/--profile/);
    expect(() => parseLoadArgs(['--slo-ttft', '100'])).toThrow(/go together/);
    expect(() => parseLoadArgs(['--multi-turn-share', '2'])).toThrow(/share/);
  });
});
