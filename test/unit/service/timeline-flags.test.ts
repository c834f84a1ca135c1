import { describe, expect, it } from 'vitest';
import { timelineFlagger } from '../../../src-main/service/timeline-flags';
import { timeline } from '../telemetry/report/timeline-fixture';

describe('timelines with a large unattributed gap', () => {
  it('are logged: the first at once, a burst after it as one line with its count', () => {
    const lines: string[] = [];
    let nowMs = 0;
    const flag = timelineFlagger(
      { warn: (topic, message) => lines.push(`${topic}: ${message}`) },
      () => nowMs,
    );
    const gappy = (id: string) => ({ ...timeline({ id }), unattributedMs: 40 });
    flag(timeline({ id: 'sound' }));
    flag(gappy('a'));
    flag(gappy('b'));
    flag(gappy('c'));
    nowMs = 10_000;
    flag(gappy('d'));
    expect(lines).toEqual([
      expect.stringMatching(/^timeline: a: 40\.000 ms of .* is in no part/),
      expect.stringMatching(/^timeline: d: .*\(2 more flagged since the last line\)$/),
    ]);
  });
});
