import type { Clock } from '../clock';
import { canonicalTimeline } from './canonical';
import { sealRecorded, TimelineBroken } from './check';
import { deriveItl, deriveParts } from './derive';
import type { Diagnosis } from './diagnosis';
import { emptyDiagnosis } from './diagnosis';
import type { FinishReason, LifeState, Timeline, Transition } from './schema';

/** Who and what a timeline is about; filled in as the request's life reveals it. */
export interface TimelineMeta {
  requestId: string;
  runId: string | null;
  conversationId: string | null;
  modelId: string;
  modelRevision: string;
  slotId: string | null;
  isColdSlot: boolean;
  numPromptTokens: number;
  numCachedTokens: number;
  /** Facts the runtime records where they happen, to explain the TTFT in words. */
  diagnosis: Diagnosis;
}

/**
 * Records one request's life at its state-machine transitions (the one choke point), on one
 * process-wide monotonic clock. Stamps from worker threads are passed in as `at`; a stamp
 * earlier than the previous one throws `TimelineBroken` at once rather than at the end.
 */
export class TimelineRecorder {
  readonly arrivedAt: number;
  readonly wallStartMs: number;
  /** Written only here: others add facts with `note` and `diagnose`. */
  private readonly facts: TimelineMeta;
  private readonly transitions: Transition[] = [];
  private readonly tokenAts: number[] = [];
  /** Where each token was produced (its worker's sampling stamp), when the engine told. */
  private readonly producedAts: number[] = [];
  private firstTokenAt: number | null = null;
  private numPreemptions = 0;
  private finished: Timeline | null = null;

  constructor(
    private readonly clock: Clock,
    meta: Pick<TimelineMeta, 'requestId'> & Partial<TimelineMeta>,
    arrivedAt = clock.now(),
  ) {
    this.arrivedAt = arrivedAt;
    this.wallStartMs = clock.wallNow() - (clock.now() - arrivedAt);
    this.facts = {
      runId: null,
      conversationId: null,
      modelId: '',
      modelRevision: '',
      slotId: null,
      isColdSlot: false,
      numPromptTokens: 0,
      numCachedTokens: 0,
      diagnosis: emptyDiagnosis(),
      ...meta,
    };
    this.transitions.push({ state: 'inbox', at: arrivedAt });
  }

  /** Who and what the timeline is about, as recorded so far (read-only: see `note`, `diagnose`). */
  get meta(): Readonly<Omit<TimelineMeta, 'diagnosis'>> & { readonly diagnosis: Readonly<Diagnosis> } {
    return this.facts;
  }

  /** Records facts the request's life revealed where it revealed them (its route, slot, cached tokens). */
  note(facts: Partial<Omit<TimelineMeta, 'requestId' | 'diagnosis'>>): void {
    Object.assign(this.facts, facts);
  }

  /** Records facts that explain the TTFT in words, where they happen (see diagnosis.ts). */
  diagnose(facts: Partial<Diagnosis>): void {
    Object.assign(this.facts.diagnosis, facts);
  }

  /** The state the request is in now. */
  get state(): LifeState {
    return this.transitions[this.transitions.length - 1]!.state;
  }

  /** True once the first chunk has been flushed to the transport. */
  get hasFirstToken(): boolean {
    return this.firstTokenAt !== null;
  }

  /** The last stamp recorded, in monotonic ms. */
  get lastAt(): number {
    return this.transitions[this.transitions.length - 1]!.at;
  }

  /** Enters `state` at `at` (default now). Re-entering the current state is a no-op. */
  enter(state: LifeState, at = this.clock.now()): void {
    this.assertOpen();
    if (at < this.lastAt || at < (this.transitions[this.transitions.length - 1]!.endAt ?? -Infinity))
      throw new TimelineBroken(this.facts.requestId, `${state} stamped before ${this.state}`);
    if (state === this.state) return;
    this.transitions.push({ state, at });
  }

  /**
   * The work of `state` ended at `at`, stamped by whoever did it (it need not be now, nor the
   * next state's start): the time until the next state begins becomes unattributed. Ignored
   * when the request has already moved past `state`.
   */
  leave(state: LifeState, at = this.clock.now()): void {
    this.assertOpen();
    const current = this.transitions[this.transitions.length - 1]!;
    if (current.state !== state) return;
    if (at < current.at) throw new TimelineBroken(this.facts.requestId, `${state} ended before it began`);
    this.transitions[this.transitions.length - 1] = { ...current, endAt: at };
  }

  /** The request lost its seat and goes back to the queue (RUNNING → WAITING). */
  preempt(at = this.clock.now()): void {
    this.numPreemptions += 1;
    this.enter('requeue', at);
  }

  /** A token was produced at `at` (the worker's stamp as it sampled it): its gap is measured there. */
  tokenProduced(at: number): void {
    this.producedAts.push(at);
  }

  /** `count` tokens reached the transport at `at`; the first flush ends TTFT and starts decode. */
  tokensFlushed(count: number, at = this.clock.now()): void {
    if (count <= 0) return;
    if (this.firstTokenAt === null) {
      this.enter('decode', at);
      this.firstTokenAt = at;
    } else if (at < this.lastTokenAt()) {
      throw new TimelineBroken(this.facts.requestId, 'token flushed before the previous one');
    }
    for (let i = 0; i < count; i++) this.tokenAts.push(at);
  }

  /** Ends the life, derives every interval, checks the invariants and returns the timeline. */
  finish(reason: FinishReason, at = this.clock.now(), errorMessage: string | null = null): Timeline {
    if (this.finished) return this.finished;
    if (at < this.lastAt) throw new TimelineBroken(this.facts.requestId, 'finished before its last state');
    const derived = deriveParts(this.arrivedAt, this.transitions, this.firstTokenAt, at);
    const { isColdSlot, diagnosis, ...meta } = this.facts;
    this.finished = sealRecorded(
      canonicalTimeline({
        ...meta,
        // A copy: a fact noted after the finish stays with the recorder, never in the timeline.
        diagnosis: { ...diagnosis },
        source: 'runtime',
        isColdSlot,
        wallStartMs: this.wallStartMs,
        arrivedAt: this.arrivedAt,
        firstTokenAt: this.firstTokenAt,
        finishedAt: at,
        transitions: [...this.transitions],
        ...derived,
        e2eMs: at - this.arrivedAt,
        itlMs: deriveItl(this.producedAts, this.tokenAts),
        numOutputTokens: this.tokenAts.length,
        numPreemptions: this.numPreemptions,
        finishReason: reason,
        errorMessage,
        clientTtftMs: null,
        clientE2eMs: null,
        networkInMs: null,
      }),
    );
    return this.finished;
  }

  private lastTokenAt(): number {
    return this.tokenAts[this.tokenAts.length - 1] ?? this.arrivedAt;
  }

  private assertOpen(): void {
    if (this.finished) throw new TimelineBroken(this.facts.requestId, 'stamped after the finish');
  }
}
