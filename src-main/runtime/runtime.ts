import type { Timeline } from '../telemetry/timeline';
import { RunnerClient } from './engine/runner-client';
import { planChat, PrefillRate } from './forecast';
import type { ChatPlan, ChatPlanInput } from './forecast';
import type { ProviderAvailability } from './engine/provider-probe';
import type { ProviderChoice } from './engine/providers';
import { ModelCatalogue, RevisionCache } from './model';
import type { CatalogueEntry } from './model';
import { PageStore } from './pages';
import type { PageCounters } from './pages';
import { EngineLoop } from './engine-loop';
import { KvBudget, Scheduler } from './scheduler';
import type { GenerationRequest, GenerationSink } from './scheduler';
import { SlotRegistry } from './slots';
import { TokenizerThread } from './tokenize';
import type { KeepAlive, Slot, SlotEvent } from './slots';
import { defaultRuntimeOptions } from './runtime-options';
import type { RuntimeOptions } from './runtime-options';

/** Page cache totals for the slots view. */
export interface PageSummary extends PageCounters {
  /** First prefill chunks that started from a worker's retained past instead of copying pages. */
  numRetainedPastHits: number;
  pageSize: number;
  numPages: number;
  numHeldPages: number;
  bytes: number;
  budgetBytes: number;
}

/** Engine load right now: seats in use and requests waiting. */
export interface LoadSummary {
  numRunning: number;
  numWaiting: number;
  numSeats: number;
  maxQueue: number;
}

/**
 * The inference runtime: model catalogue, slots, context pages, scheduler and engine loop,
 * built by one factory. Imports nothing from Electron; runs the same in the app, the
 * headless host and tests.
 */
export class Runtime {
  private constructor(
    readonly options: RuntimeOptions,
    readonly catalogue: ModelCatalogue,
    readonly registry: SlotRegistry,
    readonly pages: PageStore | null,
    private readonly engine: EngineLoop,
    private readonly rate: PrefillRate,
    private readonly tokenizer: TokenizerThread,
  ) {
    engine.onTimeline((timeline) => rate.observe(timeline));
  }

  private providerProbe: Promise<ProviderAvailability[]> | null = null;

  /** Builds a runtime and scans the model folders (nothing is loaded until asked). */
  static async create(
    overrides: Partial<RuntimeOptions> & Pick<RuntimeOptions, 'bundledModelsDir'>,
  ): Promise<Runtime> {
    const options = defaultRuntimeOptions(overrides);
    const catalogue = new ModelCatalogue(
      options.bundledModelsDir,
      options.userModelsDir,
      new RevisionCache(options.revisionCacheFile),
    );
    await catalogue.refresh();
    const pages = options.isPaging ? new PageStore(options.pageSize) : null;
    const registry = new SlotRegistry({
      clock: options.clock,
      log: options.log,
      budgetBytes: options.slotBudgetBytes,
      pageSize: options.pageSize,
      numThreads: options.numThreads,
      graphCacheDir: options.graphCacheDir,
      // A model's own choice by its canonical id (`name:variant`) or by its bare name.
      providerFor: (modelId) =>
        options.modelProviders[modelId] ??
        options.modelProviders[modelId.split(':')[0]!] ??
        options.executionProvider,
      createRunner: options.createRunner ?? (() => new RunnerClient()),
      dropPages: (identity) => pages?.dropIdentity(identity),
    });
    const budget = new KvBudget(options.kvBudgetBytes, pages, options.pageSize);
    const scheduler = new Scheduler(
      {
        maxSeats: options.maxSeats,
        prefillChunkTokens: options.prefillChunkTokens,
        isPaging: options.isPaging,
      },
      budget,
      pages,
      registry,
    );
    const tokenizer = new TokenizerThread();
    const engine = new EngineLoop({
      clock: options.clock,
      catalogue,
      registry,
      scheduler,
      store: pages,
      pageSize: options.pageSize,
      limits: options.limits,
      tokenizeLong: (model, text) => tokenizer.encode(model, text),
    });
    registry.onEvent((event) => {
      const slot =
        event.toStatus === 'resident' && event.fromStatus === 'prefetching'
          ? registry.list().find((s) => s.slotId === event.slotId)
          : undefined;
      if (slot) tokenizer.warm(slot.model);
    });
    return new Runtime(options, catalogue, registry, pages, engine, new PrefillRate(), tokenizer);
  }

  /** Every model folder found, with revisions or the reason it is broken. */
  models(): CatalogueEntry[] {
    return this.catalogue.list();
  }

  /** Rescans the model folders (a user dropped a new one in). */
  refreshModels(): Promise<CatalogueEntry[]> {
    return this.catalogue.refresh();
  }

  defaultModelId(): string | null {
    return this.catalogue.defaultModelId();
  }

  /** Starts a request; the sink receives its chunks and one outcome. */
  submit(request: GenerationRequest, sink: GenerationSink): void {
    this.engine.submit(request, sink);
  }

  /**
   * What sending this chat would do, without sending it: the turns that fit the context, the
   * pages already cached and the TTFT the measured prefill rate predicts. Throws when the model
   * cannot be resolved.
   */
  planChat(input: ChatPlanInput): ChatPlan {
    return planChat(
      {
        catalogue: this.catalogue,
        registry: this.registry,
        pages: this.pages,
        pageSize: this.options.pageSize,
        limits: this.options.limits,
        rate: this.rate,
      },
      input,
    );
  }

  /** Cancels a request; false when it is unknown or already finished. */
  cancel(requestId: string): boolean {
    return this.engine.cancel(requestId);
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

  /**
   * Which execution providers can run here, each with the reason when it cannot ("webgpu: no
   * adapter"). Probed once in a short-lived worker (a session build blocks its thread).
   */
  providers(): Promise<ProviderAvailability[]> {
    this.providerProbe ??= (async () => {
      const client = new RunnerClient();
      try {
        return await client.probe();
      } finally {
        await client.close();
      }
    })();
    return this.providerProbe;
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
    if (slot?.status === 'resident' && slot.numActiveSequences === 0)
      await this.registry.evict(slot, 'manual', `execution provider set to ${choice.provider}`);
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
    const store = this.pages;
    return {
      pageSize: this.options.pageSize,
      numPages: store?.numPages ?? 0,
      numHeldPages: store?.numHeldPages ?? 0,
      bytes: store?.bytes ?? 0,
      budgetBytes: this.options.kvBudgetBytes,
      ...(store?.counters ?? { numLookups: 0, numLookupTokens: 0, numHitTokens: 0, numEvicted: 0 }),
      numRetainedPastHits: this.engine.numRetainedPastHits,
    };
  }

  load(): LoadSummary {
    return {
      numRunning: this.engine.numRunning,
      numWaiting: this.engine.numWaiting,
      numSeats: this.options.maxSeats * Math.max(1, this.registry.list().filter((s) => s.runner).length),
      maxQueue: this.options.limits.maxQueue,
    };
  }

  onTimeline(listener: (timeline: Timeline) => void): () => void {
    return this.engine.onTimeline(listener);
  }

  onSlotEvent(listener: (event: SlotEvent) => void): () => void {
    return this.registry.onEvent(listener);
  }

  /** Stops accepting, cancels in-flight requests, waits for running steps, closes every slot. */
  async close(): Promise<void> {
    this.engine.shutdown();
    for (let i = 0; i < 500 && this.engine.isStepping; i++) await new Promise((r) => setTimeout(r, 10));
    await this.registry.closeAll();
    await this.tokenizer.close();
  }
}
