/** What the soak saw: requests served, errors by kind, and what the server said it finished. */
export class Tally {
  numServed = 0;
  /** Answers by kind: `ok`, `http 400`, `http 413`, `refused as expected`, `client: ECONNRESET`… */
  readonly byKind = new Map<string, number>();
  /** Answers that were not what that input must get (the soak fails if any). */
  readonly surprises: string[] = [];
  /** Runtime timelines the server pushed as finished (`timeline.finished`): acknowledged. */
  numAcknowledged = 0;
  /** Timelines trace imports said they imported. */
  numImported = 0;
  /** Characters of `/api/events` the reading client received (what every event client is offered). */
  numEventChars = 0;

  /** Counts one exchange under `kind`; `isExpected` false records a surprise with its detail. */
  count(kind: string, isExpected = true, detail = ''): void {
    this.numServed++;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    if (!isExpected && this.surprises.length < 50) this.surprises.push(`${kind}: ${detail}`.slice(0, 300));
  }
}
