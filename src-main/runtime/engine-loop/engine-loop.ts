import type { FinishReason, Timeline } from '../../telemetry/timeline';
import { RequestRejected } from '../scheduler';
import type { GenerationOutcome, GenerationRequest, GenerationSink, Sequence } from '../scheduler';
import { DropQueue } from './drop-queue';
import type { EngineDeps } from './engine-deps';
import { RequestIntake, newInboxEntry } from './request-intake';
import type { InboxEntry } from './request-intake';
import { RetainedPastIndex } from './retained-pasts';
import { SlotStepper } from './slot-stepper';
import { StepDispatcher } from './step-dispatch';
import { flushHeldText } from './token-output';

/**
 * The engine loop (nano-vllm's LLMEngine.step, event-driven): requests land in an inbox
 * that is drained at the top of each iteration; each idle slot with work gets one step
 * (admissions, one prefill chunk, one batched decode) sent to its worker. Every stamp is
 * taken at a state transition, here or in the dispatcher.
 */
export class EngineLoop {
  private inbox: InboxEntry[] = [];
  private readonly sequences = new Map<string, Sequence>();
  private readonly drops = new DropQueue();
  private readonly retained = new RetainedPastIndex();
  private readonly listeners = new Set<(timeline: Timeline) => void>();
  private readonly dispatcher: StepDispatcher;
  private readonly intake: RequestIntake;
  private readonly stepper: SlotStepper;
  private isIterationQueued = false;
  private isAccepting = true;

  constructor(private readonly deps: EngineDeps) {
    const isAlive = (seq: Sequence) => this.sequences.get(seq.seqId) === seq;
    const finish = (seq: Sequence, reason: FinishReason, message?: string | null) =>
      this.finishSequence(seq, reason, message ?? null);
    this.dispatcher = new StepDispatcher({
      ...deps,
      isAlive,
      finish,
      takeDrops: (slot) => this.drops.take(slot.slotId),
      dropLater: (slot, seqId) => {
        this.drops.add(slot.slotId, seqId);
        this.kick();
      },
      retained: this.retained,
    });
    this.intake = new RequestIntake(deps, {
      reject: (entry, error) => this.reject(entry, error),
      deliver: (...args) => this.deliver(...args),
      admit: (seq) => void this.sequences.set(seq.seqId, seq),
      kick: () => this.kick(),
    });
    this.stepper = new SlotStepper({
      scheduler: deps.scheduler,
      registry: deps.registry,
      dispatcher: this.dispatcher,
      drops: this.drops,
      isAlive,
      finish,
      iterate: () => this.iterate(),
    });
    deps.registry.onEvent((event) => {
      if (event.toStatus === 'failed' && (event.fromStatus === 'resident' || event.fromStatus === 'active'))
        this.failSlot(event.slotId, event.reason ?? 'its worker stopped');
    });
  }

  /** A slot's worker died: every sequence bound to it ends with an `error` finish and the reason. */
  private failSlot(slotId: string, reason: string): void {
    this.stepper.forget(slotId);
    this.drops.take(slotId);
    for (const seq of [...this.sequences.values()])
      if (seq.slot.slotId === slotId)
        this.finishSequence(
          seq,
          'error',
          `the model's worker stopped (${reason}); the next request reloads it`,
        );
    this.kick();
  }

  /** Requests not yet running: in the inbox, waiting for a slot to load, or queued. */
  get numWaiting(): number {
    return this.inbox.length + this.intake.numPending + this.deps.scheduler.numWaiting;
  }

  /** First prefill chunks that started from a worker's retained past (see retained-pasts.ts). */
  get numRetainedPastHits(): number {
    return this.dispatcher.numRetainedPastHits;
  }

  get numRunning(): number {
    return this.deps.scheduler.numRunning;
  }

  /** Accepts a request; the sink hears every chunk and exactly one outcome. */
  submit(request: GenerationRequest, sink: GenerationSink): void {
    const entry = newInboxEntry(this.deps.clock, request, sink);
    if (!this.isAccepting)
      return this.reject(entry, new RequestRejected('unavailable', 'the runtime is shutting down'));
    if (this.isKnown(request.requestId))
      return this.reject(
        entry,
        new RequestRejected('invalid_input', `request id ${request.requestId} is already in use`),
      );
    if (this.numWaiting >= this.deps.limits.maxQueue)
      return this.reject(
        entry,
        new RequestRejected(
          'queue_full',
          `the queue is full (${this.deps.limits.maxQueue} waiting); retry later`,
        ),
      );
    this.inbox.push(entry);
    this.kick();
  }

  /** Cancels a request wherever it is; its compute stops within one step. Returns false if unknown. */
  cancel(requestId: string): boolean {
    const queued =
      this.inbox.find((e) => e.request.requestId === requestId) ?? this.intake.pending(requestId);
    if (queued) {
      this.inbox = this.inbox.filter((e) => e !== queued);
      this.intake.forget(requestId);
      this.deliver(queued, 'cancelled', '', null, null);
      return true;
    }
    const seq = this.sequences.get(requestId);
    if (!seq) return false;
    this.finishSequence(seq, 'cancelled', null);
    this.kick();
    return true;
  }

  /** Subscribes to every finished timeline; returns the unsubscribe function. */
  onTimeline(listener: (timeline: Timeline) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops accepting and cancels everything in flight. */
  shutdown(): void {
    this.isAccepting = false;
    for (const entry of [...this.inbox, ...this.intake.entries()]) this.cancel(entry.request.requestId);
    for (const seq of [...this.sequences.values()])
      this.finishSequence(seq, 'cancelled', 'the runtime shut down');
  }

  /**
   * Retires a loop that a rebuilt one replaces: stops accepting and forgets pending K/V drops
   * (the caller has already closed the workers that held that K/V).
   */
  retire(): void {
    this.shutdown();
    this.drops.clear();
  }

  /** Runs an iteration soon: a setting changed (more seats, a bigger budget) and waiting work may fit. */
  poke(): void {
    this.kick();
  }

  /** True while any step is running in a worker. */
  get isStepping(): boolean {
    return this.stepper.isStepping;
  }

  private isKnown(requestId: string): boolean {
    return (
      this.sequences.has(requestId) ||
      this.intake.has(requestId) ||
      this.inbox.some((e) => e.request.requestId === requestId)
    );
  }

  /**
   * Runs an iteration as soon as the caller's synchronous work is done (a microtask, not a
   * macrotask hop): the loop never blocks on a forward, so a request waits in the inbox only
   * for whatever the main thread is already doing.
   */
  private kick(): void {
    if (this.isIterationQueued) return;
    this.isIterationQueued = true;
    queueMicrotask(() => {
      this.isIterationQueued = false;
      this.iterate();
    });
  }

  private iterate(): void {
    const entries = this.inbox;
    this.inbox = [];
    for (const entry of entries) this.intake.route(entry);
    this.expireDeadlines();
    for (const slot of this.deps.registry.list()) this.stepper.step(slot);
    this.reportQueuePositions();
  }

  private expireDeadlines(): void {
    const now = this.deps.clock.now();
    for (const seq of [...this.sequences.values()])
      if (seq.deadlineAt !== null && now >= seq.deadlineAt)
        this.finishSequence(seq, 'deadline', 'the request passed its deadline');
  }

  /** Tells each waiting request its place in the queue when it changes (not on every step). */
  private reportQueuePositions(): void {
    for (const seq of this.sequences.values()) {
      if (seq.status !== 'waiting') continue;
      const position = this.deps.scheduler.positionOf(seq);
      if (position === seq.lastQueuePosition) continue;
      seq.lastQueuePosition = position;
      seq.sink.onQueued?.(position);
    }
  }

  private finishSequence(seq: Sequence, reason: FinishReason, errorMessage: string | null): void {
    if (this.sequences.get(seq.seqId) !== seq) return;
    this.sequences.delete(seq.seqId);
    const hasKvInWorker = seq.isSeated && seq.hasStartedPrefill;
    // Before its pages are released: the worker keeps this past for the conversation's next turn.
    if (hasKvInWorker) this.retained.note(seq);
    this.deps.scheduler.remove(seq);
    // A slot without a runner (its worker died) has no K/V left to free.
    if (hasKvInWorker && seq.slot.runner) {
      this.drops.add(seq.slot.slotId, seq.seqId);
      this.kick();
    }
    seq.status = 'finished';
    flushHeldText(seq);
    this.deliver(seq, reason, seq.text, errorMessage, reason === 'error' ? 'internal' : null);
  }

  private reject(entry: InboxEntry, error: RequestRejected): void {
    this.deliver(entry, error.code === 'internal' ? 'error' : 'rejected', '', error.message, error.code);
  }

  /** Ends a life exactly once: checked timeline to the sink and to every listener. */
  private deliver(
    entry: InboxEntry,
    reason: FinishReason,
    text: string,
    errorMessage: string | null,
    errorCode: GenerationOutcome['errorCode'],
  ): void {
    const timeline = entry.recorder.finish(reason, this.deps.clock.now(), errorMessage);
    entry.sink.onDone({ requestId: entry.request.requestId, text, timeline, errorMessage, errorCode });
    for (const listener of this.listeners) listener(timeline);
  }
}
