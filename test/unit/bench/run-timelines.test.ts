import { describe, expect, it, vi } from 'vitest';
import { runTimelines } from '../../../bench/load/run-timelines';
import { createHistory } from '../../../src-main/history/create-history';
import { timeline } from '../telemetry/report/timeline-fixture';

/** A finished, checked timeline of run `run`: arrived at 1000, first token at 1010. */
const finishedTimeline = () => ({
  ...timeline({ id: 'r1', arrivedAt: 1_000, parts: { prefill: 10 } }),
  runId: 'run',
});

describe("the in-process load host's run timelines", () => {
  it("keeps a finished timeline unchanged and joins the client's figures, from its stamps, into a copy", () => {
    const kept = runTimelines(createHistory({ path: null, isPruning: false }));
    const finished = finishedTimeline();
    const before = structuredClone(finished);
    kept.add(finished);
    // Sent 2 ms before the server's arrival; first content 5 ms after the server's first token.
    kept.setClient('r1', { sentAt: 998, firstContentAt: 1_015, lastContentAt: 1_000 + finished.e2eMs + 6 });
    expect(finished).toEqual(before);
    expect(kept.of('run')).toEqual([
      { ...before, clientTtftMs: 17, clientE2eMs: before.e2eMs + 8, networkInMs: 2 },
    ]);
  });

  it('refuses a client TTFT below the server’s, with the reason: nothing is joined', () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const kept = runTimelines(createHistory({ path: null, isPruning: false }));
    const finished = finishedTimeline();
    kept.add(finished);
    kept.setClient('r1', { sentAt: 1_000, firstContentAt: 1_007, lastContentAt: 1_020 });
    expect(kept.of('run')).toEqual([finished]);
    expect(String(printed.mock.calls[0]?.[0])).toMatch(/broken client measurement/);
    printed.mockRestore();
  });
});
