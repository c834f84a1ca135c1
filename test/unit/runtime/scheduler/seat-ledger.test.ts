import { describe, expect, it } from 'vitest';
import { SeatLedger } from '../../../../src-main/runtime/scheduler/seat-ledger';
import type { Sequence } from '../../../../src-main/runtime/scheduler';
import type { KeepAlive, Slot } from '../../../../src-main/runtime/slots';

/** A registry double that counts like the real one: acquire and release move numActiveSequences. */
function holder() {
  const keepAlives: (KeepAlive | null)[] = [];
  return {
    keepAlives,
    acquire: (slot: Slot) => void (slot.numActiveSequences += 1),
    release: (slot: Slot, keepAlive: KeepAlive | null = null) => {
      slot.numActiveSequences -= 1;
      keepAlives.push(keepAlive);
    },
  };
}
const slotOf = (slotId: string) => ({ slotId, numActiveSequences: 0 }) as Slot;
const seqOn = (slot: Slot, seqId: string, keepAlive?: KeepAlive) =>
  ({ seqId, slot, request: { keepAlive } }) as unknown as Sequence;

describe('SeatLedger', () => {
  it('grants up to maxSeats per slot and counts them with the slot', () => {
    const registry = holder();
    const ledger = new SeatLedger(2, registry);
    const a = slotOf('a');
    const b = slotOf('b');
    ledger.grant(seqOn(a, 'a1'));
    ledger.grant(seqOn(a, 'a2'));
    ledger.grant(seqOn(b, 'b1'));
    expect(ledger.hasFreeSeat(a)).toBe(false);
    expect(() => ledger.grant(seqOn(a, 'a3'))).toThrow(/no free seat/);
    expect(ledger.numSeated).toBe(3);
    expect([a.numActiveSequences, b.numActiveSequences]).toEqual([2, 1]);
  });

  it('releases once, applying the request keep-alive on a finish and not on a preemption', () => {
    const registry = holder();
    const ledger = new SeatLedger(4, registry);
    const slot = slotOf('s');
    const forever: KeepAlive = { kind: 'forever' };
    const finished = seqOn(slot, 'f', forever);
    const preempted = seqOn(slot, 'p', forever);
    ledger.grant(finished);
    ledger.grant(preempted);
    expect(ledger.release(preempted, 'preempted')).toBe(true);
    expect(ledger.release(finished, 'finished')).toBe(true);
    expect(ledger.release(finished, 'finished')).toBe(false);
    expect(registry.keepAlives).toEqual([null, forever]);
    expect(slot.numActiveSequences).toBe(0);
  });

  it('refuses a second seat for one sequence, and fails loudly when the slot counts otherwise', () => {
    const ledger = new SeatLedger(4, holder());
    const slot = slotOf('s');
    const seq = seqOn(slot, 'x');
    ledger.grant(seq);
    expect(() => ledger.grant(seq)).toThrow(/already holds a seat/);
    slot.numActiveSequences = 5; // someone else touched the count
    expect(() => ledger.grant(seqOn(slot, 'y'))).toThrow(/2 seats granted but the slot counts 6/);
  });
});
