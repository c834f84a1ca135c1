/**
 * Finds stop strings in streamed text. Text that might be the start of a stop string is held
 * back until it is known not to be one, so a stop string never reaches the client.
 */
export class StopMatcher {
  private text = '';
  private numEmitted = 0;

  constructor(private readonly stops: readonly string[]) {}

  /** Adds newly decoded text; returns what is safe to emit and whether a stop string was hit. */
  push(newText: string): { emit: string; isStopped: boolean } {
    this.text += newText;
    let stopAt = -1;
    for (const stop of this.stops) {
      const at = this.text.indexOf(stop, Math.max(0, this.numEmitted - stop.length));
      if (at >= 0 && (stopAt < 0 || at < stopAt)) stopAt = at;
    }
    if (stopAt >= 0) return { emit: this.take(stopAt), isStopped: true };
    return { emit: this.take(this.text.length - this.heldBackLength()), isStopped: false };
  }

  /** Whatever was held back, at the end of the stream (no stop string can complete any more). */
  flush(): string {
    return this.take(this.text.length);
  }

  private take(until: number): string {
    if (until <= this.numEmitted) return '';
    const out = this.text.slice(this.numEmitted, until);
    this.numEmitted = until;
    return out;
  }

  /** Length of the longest text suffix that is a proper prefix of some stop string. */
  private heldBackLength(): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, this.text.length - this.numEmitted); n > longest; n--) {
        if (this.text.endsWith(stop.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }
}
