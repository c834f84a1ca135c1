import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../src-main/history/writer/fifo';

/** The backing array, which is what keeps taken items reachable (private: reading it is the point). */
function heldOf<T>(fifo: Fifo<T>): readonly T[] {
  return (fifo as unknown as { items: T[] }).items;
}

describe('Fifo', () => {
  it('takes and drops oldest first, and peeks without removing', () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 5; i++) fifo.push(i);
    expect(fifo.peek(2)).toEqual([0, 1]);
    expect(fifo.size).toBe(5);
    fifo.drop(2);
    expect(fifo.take(10)).toEqual([2, 3, 4]);
    expect(fifo.size).toBe(0);
  });

  it('holds no reference to an item once the queue has drained, however few went through', () => {
    const fifo = new Fifo<{ payload: string }>();
    for (let i = 0; i < 900; i++) fifo.push({ payload: `timeline ${i}` });
    fifo.drop(500);
    expect(heldOf(fifo).length).toBe(900);
    fifo.drop(400);
    expect(fifo.size).toBe(0);
    expect(heldOf(fifo)).toEqual([]);
  });

  it('compacts a long queue once the consumed prefix dominates, keeping what waits', () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 3_000; i++) fifo.push(i);
    fifo.drop(2_000);
    expect(heldOf(fifo).length).toBe(1_000);
    expect(fifo.peek(1)).toEqual([2_000]);
  });
});
