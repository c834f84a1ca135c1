import { isWarmSlotStatus } from '../../telemetry/residency/schema';
import type { Clock } from '../../telemetry/clock';
import { TimelineRecorder } from '../../telemetry/timeline/recorder';
import { slotGeometryOf } from '../slots/slot-geometry';
import { hasKvBuffer } from '../scheduler/kv-grant';
import type { Slot } from '../slots/slot';
import { restoreFromDisk } from '../scheduler/prefix-lookup';
import { RequestRejected, asRejected, describeRoute, routeRequest } from '../scheduler/route';
import { Sequence } from '../scheduler/sequence';
import type { GenerationRequest, GenerationSink } from '../scheduler/request';
import type { RoutedRequest } from '../scheduler/route';
import { blockersOf, slotLoadCause } from './diagnose';
import type { EngineDeps } from './engine-deps';
import type { Ending } from './engine-loop';
import type { DiskRead } from '../pages/disk-pages';
import type { DiskReadFact } from '../../telemetry/timeline/diagnosis';

/** A request between submit and its sequence: what it asks, who hears it, its timeline so far. */
export interface InboxEntry {
  request: GenerationRequest;
  sink: GenerationSink;
  recorder: TimelineRecorder;
}

/** Starts a request's timeline at its arrival (the caller's stamp, else now). */
export function newInboxEntry(clock: Clock, request: GenerationRequest, sink: GenerationSink): InboxEntry {
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
  return { request, sink, recorder };
}

/** How the intake ends a request or hands its sequence to the loop. */
export interface IntakeHost {
  reject(entry: InboxEntry, error: RequestRejected): void;
  /** Ends the request (the loop's one way to end any request). */
  end(ending: Ending): void;
  kick(): void;
}

/**
 * The road from the inbox to the scheduler's queue: routing (long prompts tokenized off the
 * serving thread), choosing the slot and waiting while it loads, then the sequence. Holds the
 * requests that wait on the way (tokenizing or loading).
 */
export class RequestIntake {
  /** Requests whose long prompt is being tokenized off the serving thread. */
  private readonly tokenizing = new Map<string, InboxEntry>();
  private readonly loading = new Map<string, InboxEntry>();
  /** Requests queued whose remembered context is being read back from disk. */
  private readonly reading = new Map<string, InboxEntry>();

  constructor(
    private readonly deps: EngineDeps,
    private readonly host: IntakeHost,
  ) {}

  /** Requests waiting on the way: tokenizing, for their slot to load, or for their context from disk. */
  get numPending(): number {
    return this.tokenizing.size + this.loading.size + this.reading.size;
  }

  /** True while the request is tokenizing, waiting for its slot or for its context from disk. */
  has(requestId: string): boolean {
    return this.tokenizing.has(requestId) || this.loading.has(requestId) || this.reading.has(requestId);
  }

  /** The waiting entry of a request, or undefined when it is not on the way. */
  pending(requestId: string): InboxEntry | undefined {
    return this.tokenizing.get(requestId) ?? this.loading.get(requestId) ?? this.reading.get(requestId);
  }

  /** Every waiting entry: tokenizing first, then loading, then reading context from disk. */
  entries(): InboxEntry[] {
    return [...this.tokenizing.values(), ...this.loading.values(), ...this.reading.values()];
  }

  /** Stops waiting for a request (cancelled); its tokenizing, load or disk read result is then ignored. */
  forget(requestId: string): void {
    this.tokenizing.delete(requestId);
    this.loading.delete(requestId);
    this.reading.delete(requestId);
  }

  /** Resolves the request's model, prompt and limits, then places it on its slot. */
  route(entry: InboxEntry): void {
    const { clock, catalogue, limits } = this.deps;
    entry.recorder.enter('route', clock.now());
    let routed: RoutedRequest | Promise<RoutedRequest>;
    try {
      routed = routeRequest(entry.request, catalogue, limits, this.deps.promptThreads);
    } catch (error) {
      return this.host.reject(entry, asRejected(error));
    }
    if (!(routed instanceof Promise)) return this.place(entry, routed);
    // A long prompt or a slow template is being worked on off this thread: the request waits here, still in `route`.
    const { requestId } = entry.request;
    this.tokenizing.set(requestId, entry);
    routed.then(
      (done) => this.tokenizing.delete(requestId) && this.place(entry, done),
      (error: unknown) => this.tokenizing.delete(requestId) && this.host.reject(entry, asRejected(error)),
    );
  }

  /** Chooses the request's slot (loading it if cold) once its requirements are resolved. */
  private place(entry: InboxEntry, routed: RoutedRequest): void {
    const { clock, registry } = this.deps;
    try {
      const current = registry.currentSlotFor(routed.model);
      // A prompt whose K/V is larger than the whole budget would wait forever: refused before any load
      // (in the geometry of the graph the slot ran last, else the variant's as listed).
      const geometry = slotGeometryOf(current ?? { model: routed.model, graphIo: null });
      const hasBuffer = current ? hasKvBuffer(current) : false;
      const neverFits = this.deps.scheduler.neverFits(geometry, routed.promptIds.length, hasBuffer);
      if (neverFits) return this.host.reject(entry, new RequestRejected('invalid_input', neverFits));
      const isWarm = current !== undefined && isWarmSlotStatus(current.status);
      // Read before ensureResident: starting the load is itself a slot event.
      const coldCause = isWarm ? null : slotLoadCause(registry, current);
      const slotId = current?.slotId ?? registry.nextSlotIdFor(routed.model);
      const ready = registry.ensureResident(routed.model, 'request');
      describeRoute(entry.recorder, routed, slotId, !isWarm);
      entry.recorder.diagnose({ slotLoad: coldCause });
      entry.recorder.leave('route', clock.now());
      if (!isWarm) {
        entry.recorder.enter('slotLoad', clock.now());
        this.loading.set(entry.request.requestId, entry);
      }
      ready.then(
        (slot) => this.enqueue(entry, slot, routed, isWarm),
        (error: Error) => {
          if (this.loading.delete(entry.request.requestId))
            this.host.end({ entry, reason: 'error', message: error.message, errorCode: 'unavailable' });
        },
      );
    } catch (error) {
      this.host.reject(entry, asRejected(error));
    }
  }

  private enqueue(entry: InboxEntry, slot: Slot, routed: RoutedRequest, isWarm: boolean): void {
    const { clock } = this.deps;
    if (!isWarm) {
      if (!this.loading.delete(entry.request.requestId)) return; // cancelled while the slot loaded
      entry.recorder.leave('slotLoad', clock.now());
    }
    // The slot granted, over the one place() expected: a load already under way for an older
    // revision of the model resolves to that revision's slot.
    entry.recorder.note({ slotId: slot.slotId });
    if (isWarm) this.deps.registry.countHit(slot);
    entry.recorder.enter('queue', clock.now());
    const seq = new Sequence(
      entry.request,
      entry.sink,
      entry.recorder,
      slot,
      routed.promptIds,
      { ...routed.sampling, vocabLimit: routed.model.folder.tokenizer.vocabSize, rngState: routed.seed },
      routed.maxTokens,
    );
    const { ramPages, pageSize } = this.deps;
    const reading = restoreFromDisk(seq, ramPages, ramPages !== null, pageSize);
    if (!reading) return this.admit(entry, seq, slot);
    // Its remembered context is read back from disk while it is queued: a share of `queue`.
    const { requestId } = entry.request;
    const startedAt = clock.now();
    this.reading.set(requestId, entry);
    const done = (read: DiskRead | null) => {
      if (!this.reading.delete(requestId)) return; // cancelled while reading
      entry.recorder.diagnose({ diskRead: diskReadOf(read, clock.now() - startedAt) });
      this.admit(entry, seq, slot);
    };
    reading.then(done, (error: unknown) => {
      this.deps.log.warn('pages', `remembered context not read from disk: ${(error as Error).message}`);
      done(null);
    });
  }

  private admit(entry: InboxEntry, seq: Sequence, slot: Slot): void {
    const { scheduler } = this.deps;
    scheduler.enqueue(seq);
    const blockers = blockersOf(scheduler.runningOn(slot), scheduler.waitingAhead(seq));
    entry.recorder.diagnose({ queuedBehind: blockers.list, numQueuedBehind: blockers.total });
    this.host.kick();
  }
}

/** What the timeline keeps of a read of remembered context (nothing read: zero pages). */
function diskReadOf(read: DiskRead | null, readMs: number): DiskReadFact {
  return {
    numPages: read?.pages.length ?? 0,
    numBytes: read?.numBytes ?? 0,
    readMs,
    refused: read ? read.refused : 'the read failed',
  };
}
