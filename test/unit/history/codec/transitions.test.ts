import { describe, expect, it } from 'vitest';
import type { Transition } from '../../../../src-main/telemetry/timeline/schema';
import { LIFE_STATES } from '../../../../src-main/telemetry/timeline/schema';
import { PackScratch, packTimeline, unpackTransitions } from '../../../../src-main/history/codec/packed';
import {
  packTransitions,
  readTransitions,
  TRANSITION_WIDTH,
} from '../../../../src-main/history/codec/transitions';
import { timeline } from '../../telemetry/report/timeline-fixture';
import { everyStateTransitions } from './transition-fixture';

/** The float64 values' bits, so that equal-looking numbers that differ in a bit are told apart. */
const bitsOf = (transitions: readonly Transition[]) =>
  transitions.flatMap((t) =>
    [t.at, t.endAt ?? 0].map((v) => Buffer.from(new Float64Array([v]).buffer).toString('hex')),
  );

describe('packed transitions', () => {
  it('read back every life state, with and without endAt, bit for bit', () => {
    const written = everyStateTransitions();
    const read = unpackTransitions(packTransitions(written));
    expect(read).toStrictEqual(written);
    expect(read.map((t) => 'endAt' in t)).toEqual(written.map((t) => 'endAt' in t));
    expect(bitsOf(read)).toEqual(bitsOf(written));
    expect(new Set(read.map((t) => t.state))).toEqual(new Set(LIFE_STATES));
  });

  it('take three float64 values each: state index, at, endAt or NaN', () => {
    const blob = packTransitions([
      { state: 'queue', at: 2.5 },
      { state: 'prefill', at: 3.25, endAt: 4 },
    ]);
    expect(Array.from(new Float64Array(blob.buffer, blob.byteOffset, blob.length / 8))).toEqual([
      LIFE_STATES.indexOf('queue'),
      2.5,
      NaN,
      LIFE_STATES.indexOf('prefill'),
      3.25,
      4,
    ]);
  });

  it('read back from a blob that is not 8-byte aligned, and from none at all', () => {
    const blob = packTransitions(everyStateTransitions());
    const unaligned = Buffer.concat([Buffer.alloc(1), blob]).subarray(1);
    expect(unaligned.byteOffset % 8).not.toBe(0);
    expect(unpackTransitions(unaligned)).toStrictEqual(everyStateTransitions());
    expect(unpackTransitions(Buffer.alloc(0))).toEqual([]);
  });

  it('pack the same bytes through the reused scratch, the one-off packer and on their own', () => {
    const scratch = new PackScratch();
    const many = timeline({ gapsMs: Array.from({ length: 300 }, (_, i) => i / 7) });
    const t = { ...many, transitions: everyStateTransitions() };
    const expected = packTransitions(t.transitions);
    expect(Buffer.from(packTimeline(t).transitions)).toEqual(expected);
    scratch.pack(timeline());
    expect(Buffer.from(scratch.pack(t).transitions)).toEqual(expected);
    expect(Buffer.from(scratch.pack(t).gaps)).toEqual(Buffer.from(new Float64Array(many.itlMs).buffer));
  });

  it('refuse a state code that names no life state and values that are not whole triples', () => {
    const codes = [LIFE_STATES.length, -1, 1.5, NaN];
    for (const code of codes)
      expect(() => readTransitions(new Float64Array([code, 1, NaN]))).toThrow(/state code/);
    expect(() => readTransitions(new Float64Array(TRANSITION_WIDTH + 1))).toThrow(/whole triples/);
    const unknown = [{ state: 'warming', at: 1 }] as unknown as Transition[];
    expect(() => packTransitions(unknown)).toThrow(/unknown state "warming"/);
  });
});
