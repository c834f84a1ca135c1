import { describe, expect, it } from 'vitest';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import type { Diagnosis, PageMiss } from '../../../src-main/telemetry/timeline/diagnosis';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { whySlow } from '../../../src-renderer/views/chat/why-slow';

const [base] = syntheticTimelines(1, { seed: 9 });
const withDiagnosis = (diagnosis: Diagnosis, parts: Partial<Timeline['parts']> = {}): Timeline => ({
  ...base!,
  ttftMs: 100,
  parts: { ...base!.parts, slotLoad: 0, queue: 0, prefill: 20, ...parts },
  numPreemptions: 0,
  diagnosis,
});
const miss = {
  numCachedTokens: 32,
  numPromptTokens: 50,
  pageSize: 16,
  divergedAtToken: null,
  changedRevisions: [],
};

describe('why a turn was slow, in words', () => {
  it('attributes a cold slot to the keep-alive that unloaded it', () => {
    const reasons = whySlow(
      withDiagnosis(
        {
          slotLoad: { kind: 'ttl', reason: 'keep-alive expired', unloadedAtWallMs: 0, keepAliveMs: 300_000 },
          pageMiss: null,
          queuedBehind: [],
          numQueuedBehind: 0,
        },
        { slotLoad: 900 },
      ),
      null,
    );
    expect(reasons[0]).toMatchObject({ kind: 'slot-load' });
    expect(reasons[0]!.text).toMatch(
      /^Loading the model took 900 ms: it was unloaded at .* when its keep-alive \(5 min idle\) expired\.$/,
    );
  });

  it('names the requests a queued one waited behind, marking this chat', () => {
    const [reason] = whySlow(
      withDiagnosis(
        {
          slotLoad: null,
          pageMiss: null,
          queuedBehind: [
            { requestId: 'aaaaaaaa-1', conversationId: 'c1', isRunning: true },
            { requestId: 'bbbbbbbb-2', conversationId: null, isRunning: false },
          ],
          numQueuedBehind: 2,
        },
        { queue: 40 },
      ),
      'c1',
    );
    expect(reason!.text).toBe(
      'Waited 40.0 ms for a seat behind 2 requests (1 answering, 1 queued ahead): aaaaaaaa (this chat), bbbbbbbb (API/bench).',
    );
  });

  const CASES: [PageMiss['kind'], Partial<PageMiss>, RegExp][] = [
    [
      'diverged',
      { divergedAtToken: 37 },
      /differs from the cached one from token 37 on \(18 computed in 20\.0 ms\)/,
    ],
    ['unaligned-tail', {}, /only the unaligned tail \(18 computed/],
    [
      'unaligned-tail',
      { numCachedTokens: 0, numPromptTokens: 12 },
      /the prompt is shorter than one 16-token page, and only full pages are cached \(12 computed/,
    ],
    ['revision', { changedRevisions: ['slot'] }, /another slot revision \(the model was reloaded since\)/],
    ['evicted', {}, /were evicted to free K\/V memory/],
    ['no-prefix', { numCachedTokens: 0 }, /nothing cached starts like this prompt \(a first message/],
  ];
  it.each(CASES)('explains a %s page miss', (kind, extra, expected) => {
    const pageMiss: PageMiss = { ...miss, ...extra, kind };
    const reasons = whySlow(
      withDiagnosis({ slotLoad: null, pageMiss, queuedBehind: [], numQueuedBehind: 0 }),
      null,
    );
    expect(reasons.map((r) => r.kind)).toEqual(['pages']);
    expect(reasons[0]!.text).toMatch(expected);
  });

  it('says nothing for a timeline without a diagnosis (older stored rows, imports)', () => {
    expect(whySlow({ ...base!, diagnosis: null }, null)).toEqual([]);
  });

  it('names remembered context read from disk as a share of the queue wait, with bytes and ms', () => {
    const reasons = whySlow(
      withDiagnosis(
        {
          slotLoad: null,
          pageMiss: { ...miss, kind: 'beyond-cache' },
          queuedBehind: [],
          numQueuedBehind: 0,
          diskRead: { numPages: 125, numBytes: 72 * 1024 * 1024, readMs: 41, refused: null },
        },
        { queue: 42 },
      ),
      null,
    );
    expect(reasons.map((r) => r.kind)).toEqual(['disk', 'pages']);
    expect(reasons[0]!.text).toBe('Read 72.0 MiB of remembered context from disk in 41.0 ms (125 pages).');
  });

  it('says why a miss found nothing on disk either instead of calling it a first message', () => {
    const textOf = (onDisk: PageMiss['onDisk']) =>
      whySlow(
        withDiagnosis({
          slotLoad: null,
          pageMiss: { ...miss, numCachedTokens: 0, kind: 'no-prefix', onDisk },
          queuedBehind: [],
          numQueuedBehind: 0,
        }),
        null,
      )[0]!.text;
    expect(textOf('evicted')).toMatch(/kept on disk but was removed to stay within the disk budget/);
    expect(textOf('off')).toMatch(/nothing is kept on disk/);
    expect(textOf('evicted')).not.toMatch(/first message/);
    expect(textOf('none')).toMatch(/nothing cached in memory or on disk starts like this prompt/);
  });
});
