import { isWarmSlotStatus } from '../../telemetry/residency/schema';
import type { FinishReason, Timeline } from '../../telemetry/timeline/schema';
import { RequestRejected, modelOfRequest } from '../scheduler/route';
import { Sequence } from '../scheduler/sequence';
import type { GenerationOutcome, GenerationRequest, GenerationSink } from '../scheduler/request';
import type { LeftSeat } from '../scheduler/step-plan';
import type { SlotEvent } from '../slots/slot-types';
import type { Slot } from '../slots/slot';
import type { CachedPage } from '../pages/ram-pages';
import { Deadlines } from './deadlines';
import { DropQueue } from './drop-queue';
import type { EngineDeps } from './engine-deps';
import { RequestIntake, newInboxEntry } from './request-intake';
import type { InboxEntry } from './request-intake';
import { RetainedPastIndex } from './retained-past-index';
import { RememberedSeats } from './remembered-seats';
import { SlotStepper } from './slot-stepper';
import { StepDispatcher } from './step-dispatch';

/**
 * The engine loop (nano-vllm's LLMEngine.step, event-driven): requests land in an inbox
 * that is drained at the top of each iteration; each idle slot with work gets one step
 * (admissions, one prefill chunk, one batched decode) sent to its worker. Every stamp is
 * taken at a state transition, here or in the dispatcher. The scheduler owns every
 * sequence's state; this loop carries out its plans and tells each sink how its request ended.
 */
export class EngineLoop {
  private inbox: InboxEntry[] = [];
  private readonly drops = new DropQueue();
  private readonly retained = new RetainedPastIndex();
  private readonly seats = new RememberedSeats();
  private readonly listeners = new Set<(timeline: Timeline) => void>();
  private readonly dispatcher: StepDispatcher;
  private readonly intake: RequestIntake;
  private readonly stepper: SlotStepper;
  private readonly deadlines: Deadlines;
  private readonly offSlotEvents: () => void;
  private isIterationQueued = false;
  private isAccepting = true;
  private isDisposed = false;

  constructor(private readonly deps: EngineDeps) {
    const finish = (seq: Sequence, reason: FinishReason, message?: string | null) =>
      this.finishSequence(seq, reason, message ?? null);
    this.dispatcher = new StepDispatcher({
      ...deps,
      finish,
      endedInPlan: ({ seq, reason, message, ...left }) =>
        this.endRequest({ entry: seq, reason, message, left }),
      takeDrops: (slot) => this.drops.take(slot.slotId),
      dropLater: (slot, seqId) => {
        this.drops.add(slot.slotId, seqId);
        this.kick();
      },
      retained: this.retained,
      takeSeat: (slot) => this.seats.take(slot.slotId),
    });
    this.intake = new RequestIntake(deps, {
      reject: (entry, error) => this.reject(entry, error),
      end: (ending) => this.endRequest(ending),
      kick: () => this.kick(),
    });
    this.stepper = new SlotStepper({
      scheduler: deps.scheduler,
      registry: deps.registry,
      dispatcher: this.dispatcher,
      drops: this.drops,
      seats: this.seats,
      finish,
      iterate: () => this.iterate(),
      log: deps.log,
    });
    this.deadlines = new Deadlines(deps.clock, (requestId) =>
      this.end(requestId, 'deadline', 'the request passed its deadline'),
    );
    this.offSlotEvents = deps.registry.onEvent((event) => this.onSlotEvent(event));
  }

  /** Requests not yet running: in the inbox, waiting for a slot to load, or queued. */
  get numWaiting(): number {
    return this.inbox.length + this.intake.numPending + this.deps.scheduler.numWaiting;
  }

  /** First prefill chunks that started from a worker's retained past (see retained-past-index.ts). */
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
    const deadlineMs = request.deadlineMs ?? this.deps.limits.defaultDeadlineMs;
    if (deadlineMs !== null) this.deadlines.arm(request.requestId, entry.recorder.arrivedAt + deadlineMs);
    this.inbox.push(entry);
    this.wakeSlotOf(request);
    this.kick();
  }

  /**
   * Wakes the idle worker of the slot this request names, so the thread's wake-up runs while
   * the request is routed, not after its job is posted (WakeNotice). A request that then goes
   * elsewhere (refused, a prompt tokenized off this thread) costs that worker a short poll.
   */
  private wakeSlotOf(request: GenerationRequest): void {
    const model = modelOfRequest(request, this.deps.catalogue, this.deps.limits);
    if (model instanceof RequestRejected) return;
    const slot = this.deps.registry.currentSlotFor(model);
    if (slot && isWarmSlotStatus(slot.status)) slot.runner?.wake?.();
  }

  /**
   * Assembles remembered conversations' pages (chains read back from disk, each from its first
   * page) in their slot's worker as retained pasts, one job of its own each, sent only while the
   * slot is idle; the last chain becomes the most recent past. Resolves when those jobs are
   * answered, or when the seats are dropped (the slot went, newer seats replaced them, the
   * engine was retired).
   */
  seatRemembered(slot: Slot, chains: ReadonlyArray<readonly CachedPage[]>): Promise<void> {
    if (!this.isAccepting) return Promise.resolve();
    const seated = this.seats.queue(slot.slotId, chains);
    this.kick();
    return seated;
  }

  /** The pasts the slots' workers probably still hold (page hashes from the first page), the least recent first. */
  retainedChains(): Array<{ slotId: string; pageHashes: string[] }> {
    return this.retained.entries();
  }

  /** Cancels a request wherever it is; its compute stops within one step. Returns false if unknown. */
  cancel(requestId: string): boolean {
    return this.end(requestId, 'cancelled', null);
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
    for (const seq of this.deps.scheduler.liveSequences())
      this.finishSequence(seq, 'cancelled', 'the runtime shut down');
  }

  /**
   * Retires the loop for good (a rebuilt one replaces it, or the runtime closed): everything in
   * flight is cancelled, then it stops hearing slot events, its timers stop, pending K/V drops
   * are forgotten (their workers are closed) and its listeners are let go. A retired loop hears
   * nothing and does nothing.
   */
  dispose(): void {
    this.shutdown();
    this.isDisposed = true;
    this.offSlotEvents();
    this.deadlines.dispose();
    this.drops.clear();
    this.seats.clear();
    this.listeners.clear();
  }

  /** Runs an iteration soon: a setting changed (more seats, a bigger budget) and waiting work may fit. */
  poke(): void {
    this.kick();
  }

  /** True while any step is running in a worker. */
  get isStepping(): boolean {
    return this.stepper.isStepping;
  }

  /** A slot whose worker died fails every sequence bound to it; any other slot event is not the loop's. */
  private onSlotEvent(event: SlotEvent): void {
    if (event.toStatus === 'failed' && isWarmSlotStatus(event.fromStatus))
      this.failSlot(event.slotId, event.reason ?? 'its worker stopped');
  }

  /**
   * A slot's worker died: the scheduler finishes every sequence bound to it, each once, and each
   * sink hears an `error` finish with the reason. Their K/V and retained pasts died with the worker.
   */
  private failSlot(slotId: string, reason: string): void {
    this.stepper.forget(slotId);
    this.drops.take(slotId);
    this.seats.drop(slotId);
    this.retained.forget(slotId);
    const message = `the model's worker stopped (${reason}); the next request reloads it`;
    for (const seq of this.deps.scheduler.failSlot(slotId))
      this.endRequest({ entry: seq, reason: 'error', message, left: null });
    this.kick();
  }

  /** True while the request is in the inbox, on its way to a slot, or a live sequence. */
  isKnown(requestId: string): boolean {
    return (
      this.deps.scheduler.sequence(requestId) !== undefined ||
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
    if (this.isIterationQueued || this.isDisposed) return;
    this.isIterationQueued = true;
    queueMicrotask(() => {
      this.isIterationQueued = false;
      this.iterate();
    });
  }

  private iterate(): void {
    if (this.isDisposed) return;
    const entries = this.inbox;
    this.inbox = [];
    for (const entry of entries) this.intake.route(entry);
    for (const slot of this.deps.registry.list()) this.stepper.step(slot);
    this.reportQueuePositions();
  }

  /** Tells each waiting request its place in the queue when it changes (not on every step). */
  private reportQueuePositions(): void {
    for (const { seq, position } of this.deps.scheduler.queueMoves()) seq.sink.onQueued?.(position);
  }

  /** Ends a request wherever it is (inbox, on its way, a live sequence); false when unknown. */
  private end(requestId: string, reason: 'cancelled' | 'deadline', message: string | null): boolean {
    const queued =
      this.inbox.find((e) => e.request.requestId === requestId) ?? this.intake.pending(requestId);
    if (queued) {
      this.inbox = this.inbox.filter((e) => e !== queued);
      this.intake.forget(requestId);
      this.endRequest({ entry: queued, reason, message });
      return true;
    }
    const seq = this.deps.scheduler.sequence(requestId);
    if (!seq) return false;
    this.finishSequence(seq, reason, message);
    this.kick();
    return true;
  }

  /** Ends a live sequence through the scheduler; a sequence already finished is left alone. */
  private finishSequence(seq: Sequence, reason: FinishReason, message: string | null): void {
    const left = this.deps.scheduler.finish(seq);
    if (left) this.endRequest({ entry: seq, reason, message, left });
  }

  private reject(entry: InboxEntry, error: RequestRejected): void {
    const reason = error.code === 'internal' ? 'error' : 'rejected';
    this.endRequest({ entry, reason, message: error.message, errorCode: error.code });
  }

  /**
   * Every request ends here, exactly once (nano-vllm's `postprocess`): a live sequence the
   * scheduler has just finished leaves its past in its worker for the conversation's next turn
   * (the rest of its K/V is forgotten with a later job; a slot without a runner has none) and
   * flushes its held-back text; then the deadline is disarmed and the checked timeline goes to
   * the sink and to every listener.
   */
  private endRequest({ entry, reason, message, left, errorCode = errorCodeOf(reason) }: Ending): void {
    let text = '';
    if (entry instanceof Sequence) {
      if (left?.hasKvInWorker && entry.slot.runner) {
        this.retained.note(entry.slot, entry.seqId, left.pageHashes);
        this.drops.add(entry.slot.slotId, entry.seqId);
        this.kick();
      }
      const rest = this.deps.scheduler.releaseHeldText(entry);
      if (rest.length > 0) entry.sink.onChunk({ requestId: entry.seqId, text: rest, tokenIds: [] });
      text = entry.text;
    }
    const { requestId } = entry.request;
    this.deadlines.disarm(requestId);
    const timeline = entry.recorder.finish(reason, this.deps.clock.now(), message);
    entry.sink.onDone({ requestId, text, timeline, errorMessage: message, errorCode });
    for (const listener of this.listeners) listener(timeline);
  }
}

/** How a request ended: where it was, why, and what a live sequence left in its worker. */
export interface Ending {
  entry: InboxEntry | Sequence;
  reason: FinishReason;
  message: string | null;
  /** A live sequence's seat as the scheduler took it back (null: its K/V died with its worker). */
  left?: LeftSeat | null;
  errorCode?: GenerationOutcome['errorCode'];
}

/** The error code a finish reason carries when the ending names none: a failure is ours, a refusal the input's. */
function errorCodeOf(reason: FinishReason): GenerationOutcome['errorCode'] {
  if (reason === 'error') return 'internal';
  return reason === 'rejected' ? 'invalid_input' : null;
}
