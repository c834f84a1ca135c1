import { describe, expect, it } from 'vitest';
import { SeatLedger } from '../../../../src-main/runtime/scheduler/seat-ledger';
import type { Sequence } from '../../../../src-main/runtime/scheduler/sequence';
import type { Slot } from '../../../../src-main/runtime/slots/slot';
import type { KeepAlive } from '../../../../src-main/telemetry/residency/schema';

/** A registry double that records what the ledger tells it: each acquire, and each release with the seats left. */
function holder() {
  const told: string[] = [];
  const keepAlives: (KeepAlive | null)[] = [];
  return {
    told,
    keepAlives,
    acquire: (slot: Slot) => void told.push(`acquire ${slot.slotId}`),
    release: (slot: Slot, numLeft: number, keepAlive: KeepAlive | null) => {
      told.push(`release ${slot.slotId} (${numLeft} left)`);
      keepAlives.push(keepAlive);
    },
  };
}
const slotOf = (slotId: string) => ({ slotId }) as Slot;
const seqOn = (slot: Slot, seqId: string, keepAlive?: KeepAlive) =>
  ({ seqId, slot, request: { keepAlive } }) as unknown as Sequence;

describe('SeatLedger', () => {
  it('grants up to maxSeats per slot and is the one count of seated sequences', () => {
    const registry = holder();
    const ledger = new SeatLedger({ maxSeats: 2 }, registry);
    const a = slotOf('a');
    const b = slotOf('b');
    ledger.grant(seqOn(a, 'a1'));
    ledger.grant(seqOn(a, 'a2'));
    ledger.grant(seqOn(b, 'b1'));
    expect(ledger.hasFreeSeat(a)).toBe(false);
    expect(() => ledger.grant(seqOn(a, 'a3'))).toThrow(/no free seat/);
    expect(ledger.numSeated).toBe(3);
    expect([ledger.seatedOn(a).length, ledger.seatedOn(b).length]).toEqual([2, 1]);
    expect(registry.told).toEqual(['acquire a', 'acquire a', 'acquire b']);
  });

  it('reads maxSeats live: a setting raised in place seats more from the next grant', () => {
    const settings = { maxSeats: 1 };
    const ledger = new SeatLedger(settings, holder());
    const slot = slotOf('s');
    ledger.grant(seqOn(slot, 'x'));
    expect(ledger.hasFreeSeat(slot)).toBe(false);
    settings.maxSeats = 2;
    expect(ledger.hasFreeSeat(slot)).toBe(true);
  });

  it('releases once, telling the registry how many seats are left, with the request keep-alive on a finish only', () => {
    const registry = holder();
    const ledger = new SeatLedger({ maxSeats: 4 }, registry);
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
    expect(registry.told.slice(2)).toEqual(['release s (1 left)', 'release s (0 left)']);
    expect(ledger.seatedOn(slot)).toEqual([]);
  });

  it('refuses a second seat for one sequence', () => {
    const ledger = new SeatLedger({ maxSeats: 4 }, holder());
    const seq = seqOn(slotOf('s'), 'x');
    ledger.grant(seq);
    expect(() => ledger.grant(seq)).toThrow(/already holds a seat/);
  });
});
