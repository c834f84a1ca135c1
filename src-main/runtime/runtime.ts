import type { Timeline } from '../telemetry/timeline/schema';
import { planChat } from './forecast/plan-chat';
import { PrefillRate } from './forecast/prefill-rate';
import type { ChatPlan, ChatPlanInput } from './forecast/plan-chat';
import { ModelCatalogue } from './model/catalogue';
import { RevisionCache } from './model/revisions';
import type { CatalogueEntry } from './model/catalogue';
import type { PlaceState } from './model/discovery/discover';
import type { DiskPages } from './pages/disk-pages';
import type { RamPages } from './pages/ram-pages';
import { probeProvidersQuietly } from './slot-worker/probe-process';
import type { ProviderAvailability } from './slot-worker/providers';
import type { ProviderChoice } from './slot-worker/providers';
import {
  buildDiskPages,
  prefetchPagesOnLoad,
  buildEngine,
  buildRegistry,
  slotBuildOptionsOf,
  warmTokenizerOnLoad,
} from './runtime-parts';
import type { EngineParts } from './runtime-parts';
import type { PrefetchOutcome } from './pages/page-prefetch';
import type { GenerationRequest, GenerationSink } from './scheduler/request';
import { applyLevelOf, changedSettings, describeChange } from './settings/changes';
import { mergeSettings, pickSettings } from './settings/schema';
import type { RuntimeSettings, SettingsPatch } from './settings/schema';
import type { SlotRegistry } from './slots/slot-registry';
import { PromptThreads } from './tokenize/prompt-threads';
import { TokenIdMemory } from './tokenize/token-id-memory';
import type { SlotEvent } from './slots/slot-types';
import type { Slot } from './slots/slot';
import type { KeepAlive } from '../telemetry/residency/schema';
import { defaultRuntimeOptions } from './runtime-options';
import type { RuntimeOptions } from './runtime-options';
import { SettingsRefused } from './applied-settings';
import type { AppliedSettings } from './applied-settings';
import { busyReasonOf, queueSummaryOf, pageSummaryOf } from './runtime-summary';
import { clearConversionCache, conversionCacheOf, convertedDirsInUse } from './model/gguf/conversion-cache';
import type { ClearedConversions, ConversionCacheState } from './model/gguf/conversion-cache';
import type { QueueSummary, PageSummary } from './runtime-summary';

/**
 * The inference runtime: model catalogue, slots, context pages, scheduler and engine loop,
 * built by one factory. Imports nothing from Electron; runs the same in the app, the
 * headless host and tests.
 */
export class Runtime {
  private readonly timelineListeners = new Set<(timeline: Timeline) => void>();
  private isReconfiguring = false;
  private providerProbe: Promise<ProviderAvailability[]> | null = null;
  private checkedProviders: ProviderAvailability[] | null = null;
  /** Stops a provider probe still running when the runtime closes (its child must not outlive us). */
  private readonly probeStop = new AbortController();
  /** The latest prefetch of remembered context (prefetchPagesOnLoad), or null before any. */
  private pagesPrefetch: Promise<PrefetchOutcome | null> = Promise.resolve(null);
  /** Every prefetch not ended yet (one per slot loading): close waits for them all. */
  private readonly pagesPrefetches = new Set<Promise<PrefetchOutcome | null>>();

  private constructor(
    readonly options: RuntimeOptions,
    readonly catalogue: ModelCatalogue,
    readonly registry: SlotRegistry,
    private parts: EngineParts,
    private readonly rate: PrefillRate,
    private readonly threads: PromptThreads,
    /** The disk tier under the pages (null: none), kept across engine rebuilds. */
    readonly disk: DiskPages | null,
  ) {
    this.forwardTimelines();
    this.onTimeline((timeline) => rate.observe(timeline));
  }

  /** Builds a runtime and scans the model folders (nothing is loaded until asked). */
  static async create(
    overrides: Partial<RuntimeOptions> & Pick<RuntimeOptions, 'bundledModelsDir'>,
  ): Promise<Runtime> {
    const options = defaultRuntimeOptions(overrides);
    Object.assign(options, mergeSettings(pickSettings(options), {}));
    const catalogue = new ModelCatalogue(
      options.bundledModelsDir,
      options.userModelsDir,
      new RevisionCache(options.revisionCacheFile),
      options.discovery,
      options.convertedModelsDir,
      options.modelPaths,
    );
    await catalogue.refresh();
    let runtime: Runtime | null = null;
    const registry = buildRegistry(options, (identity) => runtime?.pages?.dropIdentity(identity));
    const threads = new PromptThreads(
      options.tokenIds &&
        new TokenIdMemory(
          options.tokenIds,
          () => options.clock.wallNow(),
          (message) => options.log.warn('tokenizer', message),
        ),
    );
    warmTokenizerOnLoad(registry, threads);
    const disk = buildDiskPages(options);
    const parts = buildEngine(options, catalogue, registry, threads, disk);
    runtime = new Runtime(options, catalogue, registry, parts, new PrefillRate(), threads, disk);
    const started = runtime;
    prefetchPagesOnLoad(
      registry,
      () => started.parts,
      (outcome) => {
        const ended = outcome.catch((error: unknown) => {
          options.log.warn('pages', `remembered context not read back: ${(error as Error).message}`);
          return null;
        });
        started.pagesPrefetch = ended;
        started.pagesPrefetches.add(ended);
        void ended.then(() => started.pagesPrefetches.delete(ended));
      },
    );
    return runtime;
  }

  /** The user's runtime settings as they are now. */
  get settings(): RuntimeSettings {
    return pickSettings(this.options);
  }

  /** The context RAM tier (null with paging off); replaced when the page size changes. */
  get pages(): RamPages | null {
    return this.parts.pages;
  }

  /** Every model folder found, with revisions or the reason it is broken. */
  models(): CatalogueEntry[] {
    return this.catalogue.list();
  }

  /** Rescans the model folders (a user dropped a new one in). */
  refreshModels(): Promise<CatalogueEntry[]> {
    return this.catalogue.refresh();
  }

  /**
   * Turns discovery of other programs' models (Ollama, LM Studio, Hugging Face cache) on or off
   * and rescans; read-only either way.
   */
  async setDiscovery(isEnabled: boolean): Promise<CatalogueEntry[]> {
    this.options.discovery.isEnabled = isEnabled;
    return this.catalogue.refresh();
  }

  /** The places discovery reads and what each held at the last scan (`off` while discovery is off). */
  discoveryPlaces(): PlaceState[] {
    return this.catalogue.places();
  }

  /**
   * The model requests get when they name none: the setting, else the first bundled model. A
   * setting kept from before (a bare name, a variant's old id) is said as the id it names now.
   */
  defaultModelId(): string | null {
    const setting = this.options.defaultModel;
    if (setting === null) return this.catalogue.defaultModelId();
    return this.catalogue.entryOf(setting)?.modelId ?? setting;
  }

  /** Starts a request; the sink receives its chunks and one outcome. */
  submit(request: GenerationRequest, sink: GenerationSink): void {
    this.parts.engine.submit(request, sink);
  }

  /**
   * What sending this chat would do, without sending it: the turns that fit the context, the
   * pages already cached and the TTFT the measured prefill rate predicts (a long prompt is
   * tokenized, and a slow template rendered, off the serving thread). Rejects when the model cannot be resolved.
   */
  planChat(input: ChatPlanInput): Promise<ChatPlan> {
    return planChat(
      {
        catalogue: this.catalogue,
        registry: this.registry,
        pages: this.pages,
        pageSize: this.options.pageSize,
        limits: this.options,
        rate: this.rate,
        promptThreads: this.threads,
        queueNow: () => this.queueSummary(),
      },
      input,
    );
  }

  /** True while a request with this id is anywhere between submit and its finish. */
  isInFlight(requestId: string): boolean {
    return this.parts.engine.isKnown(requestId);
  }

  /** Cancels a request; false when it is unknown or already finished. */
  cancel(requestId: string): boolean {
    return this.parts.engine.cancel(requestId);
  }

  /** Loads a model's slot ahead of use (cause `prefetch`). */
  async prefetch(modelId: string): Promise<Slot> {
    const model = this.catalogue.resolve(modelId);
    if (model instanceof Error) throw model;
    return this.registry.ensureResident(model, 'prefetch');
  }

  /** Unloads an idle slot (cause `manual`). */
  async evict(slotId: string): Promise<Slot> {
    const slot = this.slotById(slotId);
    await this.registry.evict(slot, 'manual', 'evicted by the user');
    return slot;
  }

  /** Sets how long an idle slot stays resident. */
  keep(slotId: string, keepAlive: KeepAlive): Slot {
    const slot = this.slotById(slotId);
    this.registry.keep(slot, keepAlive);
    return slot;
  }

  slots(): Slot[] {
    return this.registry.list();
  }

  /** The GGUF conversion cache: each converted folder's bytes on disk, and which loaded models read. */
  conversionCache(): Promise<ConversionCacheState> {
    return conversionCacheOf(this.options.convertedModelsDir, convertedDirsInUse(this.registry.list()));
  }

  /**
   * Removes the converted folders no loaded, loading or converting model reads; a model whose
   * folder went converts again at its next load.
   */
  async clearConversionCache(): Promise<ClearedConversions> {
    const cleared = await clearConversionCache(this.options.convertedModelsDir, () =>
      convertedDirsInUse(this.registry.list()),
    );
    // Their entries list again as still to convert (catalogue.ts), so the next load converts.
    if (cleared.numRemoved > 0) await this.refreshModels();
    return cleared;
  }

  /**
   * Which execution providers can run here, each with the reason when it cannot ("webgpu: no
   * adapter"). Probed once per start, on first ask, in a child process whose output is logged at
   * debug, never printed (probe-process.ts); every later ask gets the same answer.
   */
  providers(): Promise<ProviderAvailability[]> {
    this.providerProbe ??= probeProvidersQuietly(this.options.startChild, this.options.log, {
      signal: this.probeStop.signal,
    }).then((found) => {
      this.checkedProviders = found;
      return found;
    });
    return this.providerProbe;
  }

  /** The providers' availability once the probe has answered; null before (or never asked). */
  providersIfChecked(): ProviderAvailability[] | null {
    return this.checkedProviders;
  }

  /**
   * Sets the execution provider a model's slot asks for, and whether cpu may stand in when it
   * cannot start. A resident idle slot is unloaded so its next request builds on the new one.
   */
  async setSlotProvider(modelId: string, choice: ProviderChoice): Promise<void> {
    const model = this.catalogue.resolve(modelId);
    if (model instanceof Error) throw model;
    this.options.modelProviders[model.modelId] = choice;
    const slot = this.registry.slotOf(model.modelId);
    if (slot?.status === 'resident')
      await this.registry.evict(slot, 'manual', `execution provider set to ${choice.provider}`);
  }

  /** Sequences seated on the slot now (the scheduler's seat ledger keeps the only count). */
  numSeatedOn(slot: Slot): number {
    return this.parts.scheduler.numSeatedOn(slot);
  }

  slotById(slotId: string): Slot {
    const slot = this.registry.list().find((s) => s.slotId === slotId);
    if (!slot) throw new Error(`unknown slot "${slotId}"`);
    return slot;
  }

  slotEvents(sinceAt?: number): SlotEvent[] {
    return this.registry.history(sinceAt);
  }

  pageSummary(): PageSummary {
    return pageSummaryOf(this.parts, this.options);
  }

  /** Requests running and waiting now, against the seats (what `/v1` and engine.stats report). */
  queueSummary(): QueueSummary {
    return queueSummaryOf(this.parts, this.registry, this.options);
  }

  /**
   * Applies a settings change at the level it needs (see runtime/settings APPLY_LEVELS):
   * limits for the next request, seats and budgets from the next step, and page size, threads
   * or provider by unloading every slot and rebuilding the engine, which needs an idle runtime.
   * Throws a ZodError for a bad value and SettingsRefused when it cannot apply now.
   */
  async reconfigure(patch: SettingsPatch): Promise<AppliedSettings> {
    const before = this.settings;
    const after = mergeSettings(before, patch);
    const changed = changedSettings(before, after);
    const level = applyLevelOf(changed);
    const startedAt = performance.now();
    const applied = { settings: after, changed, level, description: describeChange(before, after) };
    if (level === null) return { ...applied, evictedSlotIds: [], numDroppedPages: 0, applyMs: 0 };
    if (this.isReconfiguring) throw new SettingsRefused('another settings change is being applied');
    if (level === 'slots') {
      const busy = this.busyReason();
      if (busy) throw new SettingsRefused(`${applied.description} needs an idle engine: ${busy}`);
      this.isReconfiguring = true;
      try {
        const rebuilt = await this.rebuildSlots(after, applied.description);
        return { ...applied, ...rebuilt, applyMs: performance.now() - startedAt };
      } finally {
        this.isReconfiguring = false;
      }
    }
    // The scheduler and the loop read these settings live, from their next step on.
    Object.assign(this.options, after);
    this.parts.engine.poke();
    return { ...applied, evictedSlotIds: [], numDroppedPages: 0, applyMs: performance.now() - startedAt };
  }

  onTimeline(listener: (timeline: Timeline) => void): () => void {
    this.timelineListeners.add(listener);
    return () => this.timelineListeners.delete(listener);
  }

  onSlotEvent(listener: (event: SlotEvent) => void): () => void {
    return this.registry.onEvent(listener);
  }

  /** Hears a slot's conversion (a GGUF's first load) move on, and end (`slot.conversion` null again). */
  onSlotConversion(listener: (slot: Slot) => void): () => void {
    return this.registry.onConversion(listener);
  }

  /**
   * Resolves when the latest prefetch of remembered context into RAM has ended and the chains
   * held at the last stop are seated in the worker (null: none ran): what it read and why it stopped.
   */
  settlePrefetch(): Promise<PrefetchOutcome | null> {
    return this.pagesPrefetch;
  }

  /** Stops accepting, cancels in-flight requests, waits for running steps, closes every slot. */
  async close(): Promise<void> {
    const { engine } = this.parts;
    this.probeStop.abort();
    const held = engine.retainedChains().map(({ slotId, pageHashes }) => ({
      identity: this.registry.list().find((slot) => slot.slotId === slotId)?.pageIdentity ?? null,
      pageHashes,
    }));
    engine.shutdown();
    for (let i = 0; i < 500 && engine.isStepping; i++) await new Promise((r) => setTimeout(r, 10));
    await this.registry.closeAll();
    // Each sees its slot gone and ends after the batch it is reading.
    await Promise.all(this.pagesPrefetches);
    await this.threads.close();
    this.parts.dispose();
    await this.disk?.settle();
    // Once every page is written: the conversations the workers held become the most recent on
    // disk (pages written just now included), so the next start seats the last of them.
    for (const { identity, pageHashes } of held) if (identity) this.disk?.touchChain(identity, pageHashes);
  }

  /**
   * Forgets the remembered context only a deleted conversation reached (pages another stored
   * conversation shares stay). Resolves with the number of pages removed.
   */
  forgetConversationPages(conversationId: string): Promise<number> {
    // Remembered token ids are keyed by text hashes, not conversations: all of them go.
    this.threads.tokenIds?.forget(null);
    return this.disk?.forgetConversation(conversationId) ?? Promise.resolve(0);
  }

  /**
   * Forgets remembered context kept on disk: every page of the models with these revisions,
   * or every page when `modelRevisions` is null. Resolves with the number of pages removed.
   */
  forgetDiskPages(modelRevisions: readonly string[] | null): Promise<number> {
    this.forgetTokenIds(modelRevisions);
    if (!this.disk) return Promise.resolve(0);
    const revisions = modelRevisions && new Set(modelRevisions);
    return this.disk.forget((row) => !revisions || revisions.has(row.modelRevision));
  }

  /** Forgets the remembered token ids of these models' tokenizers (all with null). */
  private forgetTokenIds(modelRevisions: readonly string[] | null): void {
    const memory = this.threads.tokenIds;
    if (!memory) return;
    if (!modelRevisions) return void memory.forget(null);
    const tokenizers = this.catalogue
      .list()
      .flatMap((entry) =>
        entry.status === 'ok' && modelRevisions.includes(entry.model.revisions.modelRevision)
          ? [entry.model.revisions.tokenizerRevision]
          : [],
      );
    memory.forget(tokenizers);
  }

  /** Why the runtime is not idle (requests in flight, a slot loading), or null when it is. */
  busyReason(): string | null {
    return busyReasonOf(this.parts, this.registry);
  }

  /** Unloads every slot, applies the settings and builds a fresh RAM tier, budget and loop. */
  private async rebuildSlots(after: RuntimeSettings, description: string) {
    const evictedSlotIds: string[] = [];
    for (const slot of this.registry.list()) {
      if (slot.status !== 'resident' && slot.status !== 'failed') continue;
      await this.registry.evict(slot, 'manual', `settings changed: ${description}`);
      evictedSlotIds.push(slot.slotId);
    }
    const numDroppedPages = this.parts.pages?.numPages ?? 0;
    Object.assign(this.options, after);
    this.registry.setBuildOptions(slotBuildOptionsOf(this.options));
    this.parts.dispose();
    this.parts = buildEngine(this.options, this.catalogue, this.registry, this.threads, this.disk);
    this.forwardTimelines();
    return { evictedSlotIds, numDroppedPages };
  }

  /** Every finished timeline of the current loop reaches this runtime's listeners. */
  private forwardTimelines(): void {
    this.parts.engine.onTimeline((timeline) => {
      for (const listener of this.timelineListeners) listener(timeline);
    });
  }
}
