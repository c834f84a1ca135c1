import { describe, expect, it } from 'vitest';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { formatMs, formatSignedMs } from '../../../src-renderer/components/format';
import { layerMs } from '../../../src-renderer/parts/bar-layers';
import { BAR_PHASES, PHASES, PART_COLORS, PART_LABELS } from '../../../src-renderer/parts/part-colors';
import { barPhasesOf, phasesOf, slicesOf } from '../../../src-renderer/parts/phase-values';
import { SIMPLE_GROUPS, groupSlicesOf } from '../../../src-renderer/parts/simple-groups';
import { answerFigures } from '../../../src-renderer/views/chat/answer-figures';
import { barRows, niceCeil, stackedPaths } from '../../../src-renderer/views/dashboard/bar-rows';
import { residencyRows, spanOf } from '../../../src-renderer/views/slots/residency-bands';

const emptyDiagnosis = { pageMiss: null, slotLoad: null, queuedBehind: [], numQueuedBehind: 0 };

describe('what the views compute', () => {
  it('TTFT slices: non-zero phases only, in life order, shares summing to 1', () => {
    const [t] = syntheticTimelines(1, { seed: 2 });
    const slices = slicesOf(phasesOf(t!));
    expect(slices.every((s) => s.ms > 0)).toBe(true);
    expect(slices.map((s) => BAR_PHASES.indexOf(s.phase))).toEqual(
      [...slices.map((s) => BAR_PHASES.indexOf(s.phase))].sort((a, b) => a - b),
    );
    expect(slices.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1, 9);
    expect(slices.reduce((sum, s) => sum + s.ms, 0)).toBeCloseTo(t!.ttftMs!, 3);
    expect(slicesOf({ prefill: 0 })).toEqual([]);
  });

  it("an answer's bar draws a disk read as its own part right after queue, cut from it, still summing to TTFT", () => {
    const [t] = syntheticTimelines(1, { seed: 2 });
    const parts = { ...t!.parts, queue: 30 };
    const ttftMs = Object.values(parts).reduce((sum, ms) => sum + ms, 0) + t!.unattributedMs;
    const diskRead = { numPages: 3, numBytes: 3_000_000, readMs: 20, refused: null };
    const slices = slicesOf(barPhasesOf({ ...t!, parts, diagnosis: { ...emptyDiagnosis, diskRead } }));
    const at = slices.findIndex((s) => s.phase === 'queue');
    expect(slices.slice(at, at + 2).map((s) => [s.phase, s.ms])).toEqual([
      ['queue', 10],
      ['diskRead', 20],
    ]);
    expect(slices.reduce((sum, s) => sum + s.ms, 0)).toBeCloseTo(ttftMs, 6);
    expect(slicesOf(barPhasesOf({ ...t!, parts, diagnosis: null })).some((s) => s.phase === 'diskRead')).toBe(
      false,
    );
  });

  it('gives every phase its own colour', () => {
    expect(new Set(BAR_PHASES.map((p) => PART_COLORS[p])).size).toBe(BAR_PHASES.length);
  });

  it('answer figures: transport is client − server, tokens/s counts tokens after the first', () => {
    const [t] = syntheticTimelines(1, { seed: 3 });
    const timeline = { ...t!, ttftMs: 20, e2eMs: 120, numOutputTokens: 11 };
    expect(answerFigures(timeline, 26.5)).toEqual({
      serverTtftMs: 20,
      clientTtftMs: 26.5,
      transportMs: 6.5,
      tokensPerS: 100,
    });
    expect(answerFigures(timeline, null).transportMs).toBeNull();
  });

  it('residency bands: one per transition, lasting until the next one or now', () => {
    const base = { slotId: 's', modelId: 'm', reason: null };
    const rows = residencyRows(
      [
        { ...base, fromStatus: 'prefetching', toStatus: 'resident', cause: 'prefetch', atWallMs: 200 },
        { ...base, fromStatus: 'empty', toStatus: 'prefetching', cause: 'prefetch', atWallMs: 100 },
      ],
      500,
    );
    expect(rows[0]!.bands.map((b) => [b.status, b.fromWallMs, b.toWallMs])).toEqual([
      ['prefetching', 100, 200],
      ['resident', 200, 500],
    ]);
    expect(spanOf(rows, 500)).toEqual({ fromWallMs: 100, toWallMs: 500 });
  });

  it("stacks each bar's phases bottom-up in one path per phase", () => {
    const [a, b] = syntheticTimelines(2, { seed: 8 }).map((t) => ({
      ...t,
      ttftMs: 10,
      unattributedMs: 0,
      parts: {
        ...t.parts,
        inbox: 0,
        route: 0,
        slotLoad: 0,
        queue: 4,
        requeue: 0,
        lostPrefill: 0,
        activation: 0,
        contextLookup: 0,
        prefill: 6,
        emit: 0,
      },
    }));
    const rows = barRows([a!, b!]);
    expect(rows.map((r) => r.totalMs)).toEqual([10, 10]);
    const paths = stackedPaths(rows, {
      centerX: (i) => 10 + i * 10,
      slotWidth: 10,
      y: (ms) => 100 - ms * 10,
    });
    expect(paths.queue).toBe('M6.00,60.00h8.00V100.00h-8.00ZM16.00,60.00h8.00V100.00h-8.00Z');
    expect(paths.prefill).toBe('M6.00,0.00h8.00V60.00h-8.00ZM16.00,0.00h8.00V60.00h-8.00Z');
    expect(paths.emit).toBe('');
    expect([niceCeil(0), niceCeil(3), niceCeil(430), niceCeil(1000)]).toEqual([1, 5, 500, 1000]);
  });

  it('Simple groups cover every part once, so a grouped bar and grouped means keep their totals', () => {
    const grouped = SIMPLE_GROUPS.flatMap((g) => g.phases);
    expect([...grouped].sort()).toEqual([...PHASES].sort());
    const rows = barRows(syntheticTimelines(20, { seed: 5 }));
    for (const row of rows)
      expect(SIMPLE_GROUPS.reduce((sum, g) => sum + layerMs(g, row.phasesMs), 0)).toBeCloseTo(row.totalMs, 9);
    // One bar, drawn in groups: the top of the last group is the bar's total.
    const paths = stackedPaths(
      rows.slice(0, 1),
      { centerX: () => 10, slotWidth: 10, y: (ms) => -ms },
      SIMPLE_GROUPS,
    );
    const tops = Object.values(paths)
      .filter((d) => d !== '')
      .map((d) => Number(/^M[\d.]+,(-?[\d.]+)/.exec(d)![1]));
    expect(Math.min(...tops)).toBeCloseTo(-rows[0]!.totalMs, 2);
    expect(Object.keys(paths)).toEqual(SIMPLE_GROUPS.map((g) => g.key));
    const means = groupSlicesOf({ queue: 3, inbox: 1, prefill: 4, emit: 2, slotLoad: 0 });
    expect(means.map((s) => [s.group.key, s.ms, s.share])).toEqual([
      ['waiting', 4, 0.4],
      ['reading', 4, 0.4],
      ['first-token', 2, 0.2],
    ]);
    // Inside a group's hover, each part by its detail alone (the group's name is said once).
    expect(means[0]!.detail).toBe('to be picked up 1.0 ms, for a turn 3.0 ms');
  });

  it('Expert names each part with the Simple group’s words and a detail after them', () => {
    for (const group of SIMPLE_GROUPS)
      for (const phase of group.phases) expect(PART_LABELS[phase].startsWith(group.label)).toBe(true);
    expect(PART_LABELS.queue).toBe('waiting · for a turn');
    expect(PART_LABELS.slotLoad).toBe('loading the model');
    expect(PART_LABELS.diskRead.startsWith('waiting · ')).toBe(true);
  });

  it('formats durations for people', () => {
    expect([
      formatMs(0),
      formatMs(0.423),
      formatMs(12.34),
      formatMs(1234.4),
      formatMs(12_345),
      formatMs(null),
    ]).toEqual(['0 ms', '0.42 ms', '12.3 ms', '1,234 ms', '12.3 s', '–']);
    expect(formatSignedMs(-0.4)).toBe('−0.40 ms');
  });
});
