/** A first-in first-out queue: push is O(1) amortised, take(n) costs O(n), never O(size). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  /** Items waiting. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Adds an item at the back. */
  push(item: T): void {
    this.items.push(item);
  }

  /** Removes and returns up to `max` items, oldest first. */
  take(max: number): T[] {
    const end = Math.min(this.items.length, this.head + max);
    const out = this.items.slice(this.head, end);
    this.head = end;
    // An empty queue lets go of everything it held (a trace import's last batches included);
    // otherwise compact once the consumed prefix dominates, so memory tracks what still waits.
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  /** Up to `max` items, oldest first, left in the queue (drop them once they are written). */
  peek(max: number): T[] {
    return this.items.slice(this.head, Math.min(this.items.length, this.head + max));
  }

  /** Removes the `n` oldest items (those a peek returned and a write committed). */
  drop(n: number): void {
    this.take(n);
  }

  /** Drops everything waiting and returns how many items that was. */
  clear(): number {
    const n = this.size;
    this.items = [];
    this.head = 0;
    return n;
  }
}
