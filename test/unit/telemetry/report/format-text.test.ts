import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { formatReport } from '../../../../src-main/telemetry/report/format-text';
import { PHASE_NAMES } from '../../../../src-main/telemetry/report/phases';
import { SEED_PHASES } from '../../../../src-main/telemetry/report/seed-phases';
import { timeline } from './timeline-fixture';

describe("the bench's text report", () => {
  it('names parts and phases as the screens do, never by their identifiers', () => {
    const timelines = [
      timeline({
        parts: { slotLoad: 40, queue: 10, prefill: 30, emit: 1 },
        gapsMs: [5, 5],
        clientTtftMs: 90,
      }),
      timeline({ parts: { slotLoad: 35, contextLookup: 2, prefill: 20 }, gapsMs: [5], clientTtftMs: 70 }),
    ];
    const text = formatReport(buildReport(timelines), 'cold start', '2 requests').join('\n');
    expect(text).toContain(`  ${PHASE_NAMES.slotLoad} `);
    expect(text).toContain(`Dominant server TTFT part: ${PHASE_NAMES.slotLoad} (`);
    for (const id of [
      'slotLoad',
      'contextLookup',
      'lostPrefill',
      ...SEED_PHASES.filter((p) => p.includes('_')),
    ])
      expect(text).not.toMatch(new RegExp(`\\b${id}\\b`));
  });
});
