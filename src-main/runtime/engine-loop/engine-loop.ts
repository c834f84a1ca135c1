import type { Clock } from '../../telemetry/clock';
import { TimelineRecorder } from '../../telemetry/timeline';
import type { FinishReason, Timeline } from '../../telemetry/timeline';
import type { StepJob } from '../engine/protocol';
import type { ModelCatalogue } from '../model';
import type { PageStore } from '../pages';
import type { Slot, SlotRegistry } from '../slots';
import { RequestRejected, Sequence, asRejected, describeRoute, routeRequest } from '../scheduler';
import type {
  GenerationOutcome,
  GenerationRequest,
  GenerationSink,
  RequestLimits,
  RoutedRequest,
  Scheduler,
  StepPlan,
  TokenizeLong,
} from '../scheduler';
import { blockersOf, slotLoadCause } from './diagnose';
import { DropQueue } from './drop-queue';
import { RetainedPastIndex } from './retained-pasts';
import { StepDispatcher } from './step-dispatch';
import { flushHeldText } from './token-output';

/** The loop's collaborators; all built by the runtime factory. */
export interface EngineDeps {
  clock: Clock;
  catalogue: ModelCatalogue;
  registry: SlotRegistry;
  scheduler: Scheduler;
  store: PageStore | null;
  pageSize: number;
  limits: RequestLimits;
  /** Tokenizes long prompts off the serving thread; null tokenizes every prompt inline. */
  tokenizeLong: TokenizeLong | null;
}

interface InboxEntry {
  request: GenerationRequest;
  sink: GenerationSink;
  recorder: TimelineRecorder;
}

/**
 * The engine loop (nano-vllm's LLMEngine.step, event-driven): requests land in an inbox
 * that is drained at the top of each iteration; each idle slot with work gets one step
 * (admissions, one prefill chunk, one batched decode) sent to its worker. Every stamp is
 * taken at a state transition, here or in the dispatcher.
 */
export class EngineLoop {
  private inbox: InboxEntry[] = [];
  private readonly sequences = new Map<string, Sequence>();
  /** Requests whose long prompt is being tokenized off the serving thread. */
  private readonly tokenizing = new Map<string, InboxEntry>();
  private readonly loading = new Map<string, InboxEntry>();
  private readonly drops = new DropQueue();
  private readonly retained = new RetainedPastIndex();
  private readonly inFlight = new Set<string>();
  private readonly listeners = new Set<(timeline: Timeline) => void>();
  private readonly dispatcher: StepDispatcher;
  private isIterationQueued = false;
  private isAccepting = true;

  constructor(private readonly deps: EngineDeps) {
    this.dispatcher = new StepDispatcher({
      ...deps,
      isAlive: (seq) => this.sequences.get(seq.seqId) === seq,
      finish: (seq, reason, message) => this.finishSequence(seq, reason, message ?? null),
      takeDrops: (slot) => this.drops.take(slot.slotId),
      dropLater: (slot, seqId) => {
        this.drops.add(slot.slotId, seqId);
        this.kick();
      },
      retained: this.retained,
    });
    deps.registry.onEvent((event) => {
      if (event.toStatus === 'failed' && (event.fromStatus === 'resident' || event.fromStatus === 'active'))
        this.failSlot(event.slotId, event.reason ?? 'its worker stopped');
    });
  }

  /** A slot's worker died: every sequence bound to it ends with an `error` finish and the reason. */
  private failSlot(slotId: string, reason: string): void {
    this.inFlight.delete(slotId);
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
    return this.inbox.length + this.tokenizing.size + this.loading.size + this.deps.scheduler.numWaiting;
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
    const { clock } = this.deps;
    const recorder = new TimelineRecorder(
      clock,
      {
        requestId: request.requestId,
        conversationId: request.conversationId ?? null,
        runId: request.runId ?? null,
        modelId: request.modelId ?? '',
      },
      request.arrivedAt ?? clock.now(),
    );
    const entry = { request, sink, recorder };
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
      this.inbox.find((e) => e.request.requestId === requestId) ??
      this.tokenizing.get(requestId) ??
      this.loading.get(requestId);
    if (queued) {
      this.inbox = this.inbox.filter((e) => e !== queued);
      this.tokenizing.delete(requestId);
      this.loading.delete(requestId);
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
    for (const entry of [...this.inbox, ...this.tokenizing.values(), ...this.loading.values()])
      this.cancel(entry.request.requestId);
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
    return this.inFlight.size > 0;
  }

  private isKnown(requestId: string): boolean {
    return (
      this.sequences.has(requestId) ||
      this.tokenizing.has(requestId) ||
      this.loading.has(requestId) ||
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
    for (const entry of entries) this.route(entry);
    this.expireDeadlines();
    for (const slot of this.deps.registry.list()) this.stepSlot(slot);
    this.reportQueuePositions();
  }

  private route(entry: InboxEntry): void {
    const { clock, catalogue, limits } = this.deps;
    entry.recorder.enter('route', clock.now());
    let routed: RoutedRequest | Promise<RoutedRequest>;
    try {
      routed = routeRequest(entry.request, catalogue, limits, this.deps.tokenizeLong);
    } catch (error) {
      return this.reject(entry, asRejected(error));
    }
    if (!(routed instanceof Promise)) return this.place(entry, routed);
    // A long prompt is being tokenized in its thread: the request waits here, still in `route`.
    const { requestId } = entry.request;
    this.tokenizing.set(requestId, entry);
    routed.then(
      (done) => this.tokenizing.delete(requestId) && this.place(entry, done),
      (error: unknown) => this.tokenizing.delete(requestId) && this.reject(entry, asRejected(error)),
    );
  }

  /** Chooses the request's slot (loading it if cold) once its requirements are resolved. */
  private place(entry: InboxEntry, routed: RoutedRequest): void {
    const { clock, registry } = this.deps;
    try {
      const current = registry.currentSlotFor(routed.model);
      const isWarm = current?.status === 'resident' || current?.status === 'active';
      // Read before ensureResident: starting the load is itself a slot event.
      const coldCause = isWarm ? null : slotLoadCause(registry, current);
      const slotId = current?.slotId ?? registry.nextSlotIdFor(routed.model);
      const ready = registry.ensureResident(routed.model, 'request');
      describeRoute(entry.recorder, routed, slotId, !isWarm);
      entry.recorder.meta.diagnosis.slotLoad = coldCause;
      entry.recorder.leave('route', clock.now());
      if (!isWarm) {
        entry.recorder.enter('slotLoad', clock.now());
        this.loading.set(entry.request.requestId, entry);
      }
      ready.then(
        (slot) => this.enqueue(entry, slot, routed, isWarm),
        (error: Error) => {
          if (this.loading.delete(entry.request.requestId))
            this.deliver(entry, 'error', '', error.message, 'unavailable');
        },
      );
    } catch (error) {
      this.reject(entry, asRejected(error));
    }
  }

  private enqueue(entry: InboxEntry, slot: Slot, routed: RoutedRequest, isWarm: boolean): void {
    const { clock, limits } = this.deps;
    if (!isWarm) {
      if (!this.loading.delete(entry.request.requestId)) return; // cancelled while the slot loaded
      entry.recorder.leave('slotLoad', clock.now());
    }
    entry.recorder.meta.slotId = slot.slotId;
    if (isWarm) this.deps.registry.countHit(slot);
    entry.recorder.enter('queue', clock.now());
    const deadlineMs = entry.request.deadlineMs ?? limits.defaultDeadlineMs;
    const seq = new Sequence(
      entry.request,
      entry.sink,
      entry.recorder,
      slot,
      routed.promptIds,
      { ...routed.sampling, vocabLimit: routed.model.folder.tokenizer.vocabSize, rngState: routed.seed },
      routed.maxTokens,
      deadlineMs === null ? null : entry.recorder.arrivedAt + deadlineMs,
    );
    this.sequences.set(seq.seqId, seq);
    this.deps.scheduler.enqueue(seq);
    const blockers = blockersOf(this.deps.scheduler.runningOn(slot), this.deps.scheduler.waitingAhead(seq));
    entry.recorder.meta.diagnosis.queuedBehind = blockers.list;
    entry.recorder.meta.diagnosis.numQueuedBehind = blockers.total;
    this.kick();
  }

  private stepSlot(slot: Slot): void {
    if (!this.isIdle(slot)) return;
    if (!this.deps.scheduler.hasWork(slot)) {
      // A replaced revision's slot closes once its last sequence is done (drained).
      if (slot.isRetiring) return void this.deps.registry.closeRetired(slot);
      return this.dropLater(slot);
    }
    this.dispatchStep(slot);
  }

  /** True when the slot has a runner and no step in flight: its next job may be sent. */
  private isIdle(slot: Slot): boolean {
    return !this.inFlight.has(slot.slotId) && slot.runner !== null && !slot.runner.isBusy;
  }

  /** Plans the slot's next step and sends it to the worker, if there is anything to send. */
  private dispatchStep(slot: Slot): void {
    const plan = this.deps.scheduler.planStep(slot, (other) => this.isIdle(other));
    const job = this.dispatcher.buildJob(slot, plan);
    if (job) this.dispatch(slot, plan, job);
  }

  private dispatch(slot: Slot, plan: StepPlan, job: StepJob): void {
    if (!slot.runner) return;
    this.inFlight.add(slot.slotId);
    slot.runner
      .step(job)
      .then((reply) => this.dispatcher.applyReply(plan, reply))
      .catch((error: Error) => this.failPlan(plan, error))
      .finally(() => {
        this.inFlight.delete(slot.slotId);
        // Plan this slot's next step at once: a hop through the event loop would add to every
        // inter-token gap. Other slots and the inbox are served in the same pass.
        this.iterate();
      });
  }

  /** An idle slot frees finished sequences' K/V in a job of its own after a quiet spell. */
  private dropLater(slot: Slot): void {
    this.drops.flushLater(slot.slotId, () =>
      this.isIdle(slot) ? this.dispatchStep(slot) : this.dropLater(slot),
    );
  }

  private failPlan(plan: StepPlan, error: Error): void {
    const seqs = [...(plan.prefill ? [plan.prefill.seq] : []), ...plan.decodeRows];
    for (const seq of seqs)
      if (this.sequences.get(seq.seqId) === seq)
        this.finishSequence(seq, 'error', `step failed: ${error.message}`);
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
