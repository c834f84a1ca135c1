/**
 * A set of listeners with a hook for the first subscriber and the last unsubscriber, so a
 * transport opens its event feed only while someone listens.
 */
export class Listeners<A extends unknown[]> {
  private readonly set = new Set<(...args: A) => void>();

  constructor(
    private readonly onFirst: () => void = () => {},
    private readonly onLast: () => void = () => {},
  ) {}

  /** Adds a listener; returns its removal. */
  add(listener: (...args: A) => void): () => void {
    this.set.add(listener);
    if (this.set.size === 1) this.onFirst();
    return () => {
      if (this.set.delete(listener) && this.set.size === 0) this.onLast();
    };
  }

  /** Calls every listener; one that throws is logged and does not stop the others. */
  emit(...args: A): void {
    for (const listener of this.set) {
      try {
        listener(...args);
      } catch (error) {
        console.error('[bridge] listener failed:', error);
      }
    }
  }
}
