import { describe, expect, it } from 'vitest';
import type { SequenceStatus } from '../../../../src-main/runtime/scheduler/sequence';
import {
  moveSequence,
  Sequence,
  SEQUENCE_TRANSITIONS,
} from '../../../../src-main/runtime/scheduler/sequence';
import { DEFAULT_SAMPLING } from '../../../../src-main/runtime/sampling/sampler';

const STATUSES = Object.keys(SEQUENCE_TRANSITIONS) as SequenceStatus[];

/** A new sequence (only its status is exercised: its slot and recorder are bare). */
function newSequence(requestId: string): Sequence {
  return new Sequence(
    { requestId, prompt: { kind: 'text', text: 'x' } },
    { onChunk: () => undefined, onDone: () => undefined },
    {} as never,
    { model: { folder: { tokenizer: {} } } } as never,
    [1],
    { ...DEFAULT_SAMPLING, topK: 0, topP: 1, vocabLimit: 2, rngState: 0 },
    1,
  );
}

/** Moves a new sequence to `status` along legal edges. */
function walkTo(seq: Sequence, status: SequenceStatus): void {
  const path: Record<SequenceStatus, SequenceStatus[]> = {
    waiting: [],
    prefilling: ['prefilling'],
    decoding: ['prefilling', 'decoding'],
    finished: ['finished'],
  };
  for (const step of path[status]) moveSequence(seq, step);
}

describe('SEQUENCE_TRANSITIONS', () => {
  it('keeps the lifecycle the engine relies on: a life ends once, anything alive can end, decoding only after prefill', () => {
    // Properties other code assumes (cancel anywhere, one finish, a token only after prefill),
    // not the table restated: an edge added or removed against them fails here.
    expect(SEQUENCE_TRANSITIONS.finished).toEqual([]);
    for (const from of STATUSES) {
      expect(SEQUENCE_TRANSITIONS[from], from).not.toContain(from);
      if (from !== 'finished') expect(SEQUENCE_TRANSITIONS[from], from).toContain('finished');
    }
    const intoDecoding = STATUSES.filter((from) => SEQUENCE_TRANSITIONS[from].includes('decoding'));
    expect(intoDecoding).toEqual(['prefilling']);
    const intoPrefilling = STATUSES.filter((from) => SEQUENCE_TRANSITIONS[from].includes('prefilling'));
    expect(intoPrefilling).toEqual(['waiting']);
    // Preemption: a seated sequence can wait again (and is recomputed later).
    expect(SEQUENCE_TRANSITIONS.decoding).toContain('waiting');
  });

  it('checks every change: each listed edge moves, every other one throws and leaves the status as it was', () => {
    for (const from of STATUSES)
      for (const to of STATUSES) {
        const seq = newSequence(`${from}-${to}`);
        walkTo(seq, from);
        if (SEQUENCE_TRANSITIONS[from].includes(to)) {
          moveSequence(seq, to);
          expect(seq.status).toBe(to);
        } else {
          expect(() => moveSequence(seq, to)).toThrow(
            `sequence ${from}-${to}: ${from} → ${to} is not a sequence transition`,
          );
          expect(seq.status).toBe(from);
        }
      }
  });
});
