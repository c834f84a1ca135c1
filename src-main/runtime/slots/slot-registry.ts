import { isConverted } from '../model/gguf/gguf-convert';
import { reasonOf } from '../../telemetry/log/log';
import { isBusySlotStatus, isWarmSlotStatus } from '../../telemetry/residency/schema';
import type { CatalogueModel } from '../model/catalogue';
import type { SpareState } from '../slot-worker/spare-worker';
import { plainOrtError } from '../slot-worker/ort-error';
import { footprintOf, mb, newSlot, slotIdOf, waitUntilIdle } from './slot';
import type { Slot, SlotRunner } from './slot';
import { SlotEventLog } from './slot-event-log';
import { SlotExpiry } from './slot-expiry';
import { applyLoaded, loadJobOf } from './slot-load';
import type { SlotRegistryOptions } from './slot-registry-options';
import type { KeepAlive, SlotCause, SlotEvent, SlotStatus } from './slot-types';

/**
 * Owns every model slot and its state machine (`empty → prefetching → resident ⇄ active →
 * evicting → empty`, plus `failed`). Every transition is an event with a cause. A slot is
 * `active` exactly while the scheduler's seat ledger has a sequence seated on it (the ledger
 * says when, and keeps the only count); an active slot or one with a step in flight is never
 * evicted.
 */
export class SlotRegistry {
  private readonly slots = new Map<string, Slot>();
  /** Slots of replaced revisions still draining their sequences, by slot id. */
  private readonly retiring = new Map<string, Slot>();
  /** How many slots each model has had (a new revision's slot gets a new id). */
  private readonly generations = new Map<string, number>();
  private readonly loads = new Map<Slot, Promise<Slot>>();
  private readonly eventLog: SlotEventLog;
  private readonly conversionListeners = new Set<(slot: Slot) => void>();
  private readonly expiry: SlotExpiry;

  constructor(private readonly options: SlotRegistryOptions) {
    this.eventLog = new SlotEventLog(options.clock, options.log);
    this.expiry = new SlotExpiry(options.clock, (slot, reason) => this.expire(slot, reason));
    options.spare?.refill();
  }

  /** The spare slot worker's state, or null when this registry keeps none. */
  spareState(): SpareState | null {
    return this.options.spare?.state() ?? null;
  }

  /** Every slot, in creation order, then the retiring ones (still draining). */
  list(): Slot[] {
    return [...this.slots.values(), ...this.retiring.values()];
  }

  /** The slot of a model, or undefined when none was ever created. */
  slotOf(modelId: string): Slot | undefined {
    return this.slots.get(modelId);
  }

  /** The slot of this model revision, or undefined when it has none (yet). */
  currentSlotFor(model: CatalogueModel): Slot | undefined {
    const slot = this.slots.get(model.modelId);
    return slot?.model.revisions.modelRevision === model.revisions.modelRevision ? slot : undefined;
  }

  /** The id the next slot of this model will get (a new revision gets a new slot). */
  nextSlotIdFor(model: CatalogueModel): string {
    return slotIdOf(model.modelId, (this.generations.get(model.modelId) ?? 0) + 1);
  }

  /** Slot events, oldest first, optionally from a monotonic instant on. */
  history(sinceAt = -Infinity): SlotEvent[] {
    return this.eventLog.history(sinceAt);
  }

  /** Subscribes to slot events; returns the unsubscribe function. */
  onEvent(listener: (event: SlotEvent) => void): () => void {
    return this.eventLog.onEvent(listener);
  }

  /** Hears a slot's conversion move on (its `conversion` field; null once it ends); returns the unsubscribe. */
  onConversion(listener: (slot: Slot) => void): () => void {
    this.conversionListeners.add(listener);
    return () => this.conversionListeners.delete(listener);
  }

  /** Makes the model's slot resident (loading it if needed) and resolves when it is. */
  ensureResident(model: CatalogueModel, cause: SlotCause): Promise<Slot> {
    const slot = this.slotFor(model);
    if (isWarmSlotStatus(slot.status)) return Promise.resolve(slot);
    // Keyed by the slot, not the model id: a new revision's slot never waits on the old one's load.
    const pending = this.loads.get(slot);
    if (pending) return pending;
    if (slot.status === 'evicting')
      return Promise.reject(new Error(`slot ${slot.slotId} is being evicted; retry`));
    // A GGUF whose converted folder was cleared since this slot held it converts again.
    if (model.conversion && !isConverted(model.conversion.dir)) slot.model = model;
    const load = this.load(slot, cause).finally(() => this.loads.delete(slot));
    this.loads.set(slot, load);
    return load;
  }

  /** A request found the slot warm (a hit on the slots view). */
  countHit(slot: Slot): void {
    slot.numHits += 1;
  }

  /** A sequence took a seat on the slot (resident → active on the first); the SeatLedger calls this. */
  acquire(slot: Slot): void {
    this.expiry.clear(slot);
    slot.lastUsedAt = this.options.clock.now();
    slot.lastUsedWallMs = this.options.clock.wallNow();
    if (slot.status === 'resident') this.transition(slot, 'active', 'request');
  }

  /**
   * A sequence left its seat, `numLeft` still sit there (the SeatLedger calls this); the last
   * one leaving makes the slot idle and starts its keep-alive. A failed slot stays failed.
   */
  release(slot: Slot, numLeft: number, keepAlive: KeepAlive | null): void {
    if (keepAlive) slot.keepAlive = keepAlive;
    if (numLeft > 0 || slot.status !== 'active') return;
    this.transition(slot, 'resident', 'request');
    if (!slot.isRetiring) this.expiry.schedule(slot);
  }

  /** Sets a slot's keep-alive (manual "keep") and restarts its countdown when idle. */
  keep(slot: Slot, keepAlive: KeepAlive): void {
    slot.keepAlive = keepAlive;
    if (slot.status === 'resident') this.expiry.schedule(slot);
  }

  /** Unloads an idle slot; refuses (throws) while sequences run on it (it is `active` then). */
  async evict(slot: Slot, cause: SlotCause, reason: string | null = null): Promise<void> {
    if (slot.status === 'failed') return this.transition(slot, 'empty', cause, reason);
    if (slot.status !== 'resident')
      throw new Error(`slot ${slot.slotId} is ${slot.status}; only an idle resident slot can be evicted`);
    await waitUntilIdle(slot);
    if (slot.status !== 'resident') throw new Error(`slot ${slot.slotId} is in use`);
    this.expiry.clear(slot);
    this.transition(slot, 'evicting', cause, reason);
    const runner = slot.runner;
    const identity = slot.pageIdentity;
    slot.runner = null;
    slot.pageIdentity = null;
    if (identity) this.options.dropPages(identity);
    await this.closeRunner(slot, runner);
    this.transition(slot, 'empty', cause, reason);
  }

  /**
   * How the next slot builds are made (page size, threads and their spinning, load-time fusion).
   * Only while no slot holds a runner: a built session would otherwise disagree with its own page identity.
   */
  setBuildOptions(
    build: Pick<SlotRegistryOptions, 'pageSize' | 'numThreads' | 'canSpinThreads' | 'canFuseAtLoad'>,
  ): void {
    const loaded = this.list().filter((s) => s.runner !== null || this.loads.has(s));
    if (loaded.length > 0)
      throw new Error(`slots ${loaded.map((s) => s.slotId).join(', ')} are still loaded`);
    Object.assign(this.options, build);
  }

  /** Evicts every idle slot and closes every worker (shutdown). */
  async closeAll(): Promise<void> {
    // First, so that the slots going quiet below start no new spare.
    await this.options.spare?.close();
    for (const slot of this.list()) {
      this.expiry.clear(slot);
      if (slot.status === 'resident') await this.evict(slot, 'manual', 'shutdown');
      else await this.closeRunner(slot, slot.runner);
    }
  }

  /**
   * The model's current slot; a new model revision gets a new slot (with a new id) and the old
   * one retires: it drains the sequences already bound to it, and the engine closes it when it
   * has no work left (closeRetired). An old slot without a runner is simply forgotten.
   */
  private slotFor(model: CatalogueModel): Slot {
    const current = this.slots.get(model.modelId);
    if (current && current.model.revisions.modelRevision === model.revisions.modelRevision) return current;
    const generation = (this.generations.get(model.modelId) ?? 0) + 1;
    this.generations.set(model.modelId, generation);
    const slot = newSlot(model, current, generation, this.options.providerFor(model.modelId).provider);
    this.slots.set(model.modelId, slot);
    // One still loading retires too: its load ends with a runner that only closeRetired closes.
    if (current?.runner || (current && this.loads.has(current))) {
      current.isRetiring = true;
      this.expiry.clear(current);
      this.retiring.set(current.slotId, current);
    }
    return slot;
  }

  /**
   * Closes a retiring slot once nothing runs or waits on it (the engine calls this): its runner
   * is closed and its pages dropped, cause `request`, reason "replaced by a new revision".
   */
  async closeRetired(slot: Slot): Promise<void> {
    if (!slot.isRetiring || this.retiring.get(slot.slotId) !== slot) return;
    // Still loading: closed on a later call, once its load has handed it a runner.
    if (this.loads.has(slot)) return;
    this.retiring.delete(slot.slotId);
    const reason = 'replaced by a new revision of the model';
    if (slot.status === 'resident') return this.evict(slot, 'request', reason);
    const runner = slot.runner;
    slot.runner = null;
    await this.closeRunner(slot, runner);
  }

  private async load(slot: Slot, cause: SlotCause): Promise<Slot> {
    this.transition(slot, 'prefetching', cause);
    try {
      if (slot.model.conversion) await this.convert(slot);
      await this.evictIdleSlotsFor(slot);
      const runner = this.options.createRunner();
      slot.runner = runner;
      runner.onExit?.((reason) => this.failDead(slot, runner, reason));
      const provider = this.options.providerFor(slot.model.modelId);
      slot.requestedProvider = provider.provider;
      const job = loadJobOf(slot, provider, this.options);
      const loaded = await runner.load(job);
      applyLoaded(slot, job, loaded, this.options.pageSize);
      slot.lastUsedAt = this.options.clock.now();
      this.transition(slot, 'resident', cause);
      if (!slot.isRetiring) this.expiry.schedule(slot);
      return slot;
    } catch (error) {
      const raw = (error as Error).message;
      const reason = plainOrtError(raw);
      if (reason !== raw)
        this.options.log.warn(
          'slots',
          `model ${slot.model.modelId} failed to load; ONNX Runtime said: ${raw}`,
        );
      const runner = slot.runner;
      slot.runner = null;
      await this.closeRunner(slot, runner);
      slot.failureReason = reason;
      this.transition(slot, 'failed', 'error', reason);
      throw new Error(`model ${slot.model.modelId} failed to load: ${reason}`);
    }
  }

  /**
   * Converts the slot's model before its load (a GGUF's first load), the bytes done kept on the
   * slot and told to conversion listeners; the slot then holds the converted model.
   */
  private async convert(slot: Slot): Promise<void> {
    const startedAtWallMs = this.options.clock.wallNow();
    const tell = (bytesDone: number, bytesTotal: number) => {
      slot.conversion = { bytesDone, bytesTotal, startedAtWallMs };
      this.tellConversion(slot);
    };
    tell(0, slot.model.conversion!.bytesTotal);
    try {
      slot.model = await this.options.prepareModel(slot.model, tell);
      slot.footprintBytes = footprintOf(slot.model);
    } finally {
      slot.conversion = null;
      this.tellConversion(slot);
    }
  }

  private tellConversion(slot: Slot): void {
    for (const listener of this.conversionListeners) {
      try {
        listener(slot);
      } catch (error) {
        this.options.log.warn('slots', `a conversion listener failed: ${reasonOf(error)}`);
      }
    }
  }

  /**
   * The slot's worker died on its own: only the slot changes here. It is `failed` with the
   * reason (cause `error`) and its runner is gone; the engine hears the event and hands the
   * slot's sequences to the scheduler, which finishes each (releasing seats and pages). Then
   * the session's pages, which no later session can hit, are dropped; the next request reloads.
   */
  private failDead(slot: Slot, runner: SlotRunner, reason: string): void {
    if (slot.runner !== runner || (slot.status !== 'resident' && slot.status !== 'active')) return;
    this.expiry.clear(slot);
    const identity = slot.pageIdentity;
    slot.runner = null;
    slot.pageIdentity = null;
    slot.host = null;
    slot.failureReason = reason;
    this.transition(slot, 'failed', 'error', reason);
    if (identity) this.options.dropPages(identity);
  }

  /** Evicts idle slots, least recently used first, until the new slot fits the budget. */
  private async evictIdleSlotsFor(slot: Slot): Promise<void> {
    const usedBytes = () =>
      this.list()
        .filter((s) => s !== slot && s.runner)
        .reduce((sum, s) => sum + s.footprintBytes, 0);
    const idle = this.list()
      .filter((s) => s !== slot && s.status === 'resident')
      .sort((a, b) => (a.lastUsedAt ?? 0) - (b.lastUsedAt ?? 0));
    while (usedBytes() + slot.footprintBytes > this.options.budgetBytes && idle.length > 0)
      await this.evict(idle.shift()!, 'budget', `making room for ${slot.model.modelId}`);
    if (usedBytes() + slot.footprintBytes > this.options.budgetBytes)
      throw new Error(
        `slot budget: ${mb(slot.footprintBytes)} needed, ${mb(this.options.budgetBytes - usedBytes())} free and every other resident slot is in use`,
      );
  }

  /** A keep-alive ran out on an idle slot: unload it (cause `ttl`). */
  private expire(slot: Slot, reason: string): void {
    // The slot stays resident (its countdown ends; a request or the user can try again).
    this.evict(slot, 'ttl', reason).catch((error: unknown) =>
      this.options.log.warn(
        'slots',
        `${slot.slotId} stayed loaded: ${reason}, but unloading failed: ${reasonOf(error)}`,
      ),
    );
  }

  /**
   * Closes a slot's worker. A worker that will not close cannot be retried (it is already
   * detached from the slot), so the failure is logged: its memory may be held until exit.
   */
  private async closeRunner(slot: Slot, runner: SlotRunner | null): Promise<void> {
    slot.kvBufferBytes = null;
    await runner
      ?.close()
      .catch((error: unknown) =>
        this.options.log.warn(
          'slots',
          `the worker of ${slot.slotId} did not close cleanly: ${reasonOf(error)}`,
        ),
      );
  }

  /** Every slot change goes through the event log; the spare worker waits while any slot is busy. */
  private transition(slot: Slot, to: SlotStatus, cause: SlotCause, reason: string | null = null): void {
    this.eventLog.transition(slot, to, cause, reason);
    const isQuiet = this.list().every((s) => !isBusySlotStatus(s.status));
    if (isQuiet) this.options.spare?.refillWhenQuiet();
    else this.options.spare?.holdOff();
  }
}
