import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { collectGeneration } from '../../src-main/runtime/collect';
import type { Runtime } from '../../src-main/runtime/runtime';
import type { ModelFolder } from '../../src-main/runtime/model/load-folder';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import type { KvBatch } from '../../src-main/runtime/slot-worker/kv-batch';
import type { Floor } from './floor';
import { promptOfTokens } from './prompts';

/** One measured request of a case and the floor for the same uncached tokens. */
export interface CaseRun {
  timeline: Timeline;
  /** When the runtime handed the first chunk to this bench's sink (the flush starts), process clock. */
  firstChunkHandedAt: number;
  floorPrefillMs: number;
  /** Cold runs: reading the model file from page cache right after the load (ms). */
  fileReadMs?: number;
  /** Cold runs: whether the load built from ONNX Runtime's cached optimized graph. */
  graphCache?: string | null;
  /** Cold runs: the spare slot worker when the request arrived (`ready`: the load skipped a thread start). */
  spareAtLoad?: string;
  /** Cold runs: the start of the spare that replaced the taken one (spawn → ready, ms); null: none. */
  spareStartMs?: number | null;
}

/** A finished request and the instant its first chunk reached the sink. */
export interface Measured {
  timeline: Timeline;
  firstChunkHandedAt: number;
}

/** A benchmark case: every run of it, in order. */
export interface CaseResult {
  name: string;
  isSlotHit: boolean;
  isPageHit: boolean;
  runs: CaseRun[];
  /** Requests run before the measured ones and left out of them (the resident case's JIT warm-up). */
  warmUp?: Measured[];
}

/** What every case needs: the runtimes (paging on and off), the floor and the workload. */
export interface CaseContext {
  paged: Runtime;
  unpaged: Runtime;
  floor: Floor;
  folder: ModelFolder;
  /** The variant's ONNX file (its read from page cache is the cold load's yardstick). */
  onnxPath: string;
  modelId: string;
  numRuns: number;
  promptTokens: number;
  cachedPrefixTokens: number;
  newTokens: number;
  maxTokens: number;
  onProgress: (label: string) => void;
}

/**
 * A pause that lets a finished request's tail run before the next measured one: its drop job
 * (DROP_DELAY_MS, 25 ms, after it finished) and the page copies that follow it.
 */
const SETTLE_MS = 100;

let requestCounter = 0;

/**
 * One greedy text request through the runtime; throws if it did not finish normally. The sink
 * stamps when the first chunk reaches it, on the runtime's clock: the flush then runs from
 * there to the timeline's first-token stamp, which splits `emit` in two.
 */
export async function request(
  runtime: Runtime,
  modelId: string,
  text: string,
  maxTokens: number,
): Promise<Measured> {
  let firstChunkHandedAt: number | null = null;
  const result = await collectGeneration(
    runtime,
    {
      requestId: `bench-${++requestCounter}`,
      modelId,
      prompt: { kind: 'text', text },
      maxTokens,
      temperature: 0,
    },
    () => void (firstChunkHandedAt ??= runtime.options.clock.now()),
  );
  if (result.timeline.finishReason !== 'length' && result.timeline.finishReason !== 'stop')
    throw new Error(`bench request failed: ${result.errorMessage}`);
  if (firstChunkHandedAt === null) throw new Error('bench request produced no chunk');
  return { timeline: result.timeline, firstChunkHandedAt };
}

/** The slot is unloaded before each run, so every request pays slotLoad (the explicit slow path). */
export async function coldSlotNoPage(ctx: CaseContext): Promise<CaseResult> {
  const runs: CaseRun[] = [];
  for (let i = 0; i < ctx.numRuns; i++) {
    const slot = ctx.paged.slots().find((s) => s.model.modelId === ctx.modelId);
    if (slot && slot.status === 'resident') await ctx.paged.evict(slot.slotId);
    const text = promptOfTokens(ctx.folder.tokenizer, ctx.promptTokens, 1000 + i);
    const spareAtLoad = ctx.paged.registry.spareState()?.status ?? 'off';
    const measured = await request(ctx.paged, ctx.modelId, text, ctx.maxTokens);
    const graphCache = ctx.paged.slots().find((s) => s.model.modelId === ctx.modelId)?.graphCache?.status;
    // The replacement spare starts once the runtime is quiet: let it finish before the file read
    // and the floor are timed (they would share its cores), and before the next cold load.
    const spareStartMs = await spareReady(ctx.paged);
    const readStartMs = performance.now();
    await readFile(ctx.onnxPath);
    const fileReadMs = performance.now() - readStartMs;
    runs.push({
      ...measured,
      floorPrefillMs: await ctx.floor.prefillMs(ctx.folder.tokenizer.encode(text), null),
      fileReadMs,
      graphCache: graphCache ?? null,
      spareAtLoad,
      spareStartMs,
    });
    ctx.onProgress(`cold_slot_no_context_page ${i + 1}/${ctx.numRuns}`);
  }
  return { name: 'cold_slot_no_context_page', isSlotHit: false, isPageHit: false, runs };
}

/** Waits until the runtime's spare slot worker is ready; its start (ms), or null when it keeps none. */
async function spareReady(runtime: Runtime): Promise<number | null> {
  for (let i = 0; i < 3000; i++) {
    const spare = runtime.registry.spareState();
    if (!spare || spare.status === 'off') return null;
    if (spare.status === 'ready') return spare.lastStartMs;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the spare slot worker did not become ready in 30 s');
}

/**
 * Unmeasured requests the resident case runs first. Its slot worker is new (the cold case's
 * last load): over its first requests V8 still compiles their code, on background threads that
 * on a 2-core machine take a core from the request's own two threads for milliseconds at a
 * time. The steady state is measured; these runs are reported beside it.
 */
export const WARM_UP_REQUESTS = 5;

/**
 * A resident slot and a prompt no page covers (each run starts with a different first page),
 * after WARM_UP_REQUESTS unmeasured ones. Each request finds the slot idle, as after a pause:
 * the previous request's tail (its drop, its last pages' copies) has run. The floors run after
 * all requests, so their allocations on this thread never land (as GC) in a measured request's
 * main-thread work.
 */
export async function residentSlotNoPage(ctx: CaseContext): Promise<CaseResult> {
  await ctx.paged.prefetch(ctx.modelId);
  const warmUp: Measured[] = [];
  for (let i = 0; i < WARM_UP_REQUESTS; i++) {
    await sleep(SETTLE_MS);
    const text = promptOfTokens(ctx.folder.tokenizer, ctx.promptTokens, 1500 + i);
    warmUp.push(await request(ctx.paged, ctx.modelId, text, ctx.maxTokens));
  }
  const measured: Array<{ ids: number[]; run: Measured }> = [];
  for (let i = 0; i < ctx.numRuns; i++) {
    await sleep(SETTLE_MS);
    const text = promptOfTokens(ctx.folder.tokenizer, ctx.promptTokens, 2000 + i);
    measured.push({
      ids: ctx.folder.tokenizer.encode(text),
      run: await request(ctx.paged, ctx.modelId, text, ctx.maxTokens),
    });
    ctx.onProgress(`resident_slot_no_context_page ${i + 1}/${ctx.numRuns}`);
  }
  const runs: CaseRun[] = [];
  for (const { ids, run } of measured)
    runs.push({ ...run, floorPrefillMs: await ctx.floor.prefillMs(ids, null) });
  return { name: 'resident_slot_no_context_page', isSlotHit: true, isPageHit: false, runs, warmUp };
}

/**
 * A long shared prefix already in context pages plus a few new tokens, measured side by side
 * with the same requests on a runtime with paging off (interleaved, one run each in turn). Each
 * hit's floor is timed right after its pair, and the hit and its floor each start after the same
 * pause (SETTLE_MS, which also lets the paging-off request's tail run first): on this VM a forward
 * that follows an idle spell runs at another speed than one right after another forward, and a
 * forward of this size swings by ~20 % over a few hundred ms, so floors timed in a burst after all
 * runs made the ratio a draw. The floor's past is the prefix's K/V,
 * assembled once (every run caches the same pages), so a floor allocates only its new columns
 * and its garbage never lands (as GC) in a measured request; the paging-off floors, full
 * 1,044-token forwards, still run after the runs.
 */
export async function pageHitVersusOff(ctx: CaseContext): Promise<[CaseResult, CaseResult]> {
  const prefix = promptOfTokens(ctx.folder.tokenizer, ctx.cachedPrefixTokens, 7);
  await ctx.unpaged.prefetch(ctx.modelId);
  // Setup, not measured: stores the prefix's pages, whose copies then run before the first hit.
  await request(ctx.paged, ctx.modelId, `${prefix} warm`, 1);
  // The floor's past, assembled before the first hit (its 25 MB of garbage settles first).
  const pastOf = cachedPasts(ctx.floor);
  await pastOf(ctx.folder.tokenizer.encode(prefix));
  const measured: Array<{ ids: number[]; hit: Measured; off: Measured; hitFloorMs: number }> = [];
  for (let i = 0; i < ctx.numRuns; i++) {
    const text = `${prefix} ${promptOfTokens(ctx.folder.tokenizer, ctx.newTokens, 3000 + i)}`;
    const ids = ctx.folder.tokenizer.encode(text);
    await sleep(SETTLE_MS);
    const hit = await request(ctx.paged, ctx.modelId, text, ctx.maxTokens);
    const off = await request(ctx.unpaged, ctx.modelId, text, ctx.maxTokens);
    await sleep(SETTLE_MS);
    const numCached = hit.timeline.numCachedTokens;
    const hitFloorMs = await ctx.floor.prefillMs(ids.slice(numCached), await pastOf(ids.slice(0, numCached)));
    measured.push({ ids, hit, off, hitFloorMs });
    ctx.onProgress(`resident_slot_context_page_hit ${i + 1}/${ctx.numRuns}`);
  }
  const hitRuns: CaseRun[] = measured.map(({ hit, hitFloorMs }) => ({ ...hit, floorPrefillMs: hitFloorMs }));
  const offRuns: CaseRun[] = [];
  for (const { ids, off } of measured)
    offRuns.push({ ...off, floorPrefillMs: await ctx.floor.prefillMs(ids, null) });
  return [
    { name: 'resident_slot_context_page_hit', isSlotHit: true, isPageHit: true, runs: hitRuns },
    { name: 'resident_slot_context_page_off', isSlotHit: true, isPageHit: false, runs: offRuns },
  ];
}

/**
 * The floor's past of a cached prefix, assembled once and reused while the prefix is the same
 * (every run's cached tokens are the shared prefix's; compared id by id, recomputed otherwise).
 */
function cachedPasts(floor: Floor): (ids: number[]) => Promise<KvBatch> {
  let held: { ids: number[]; past: KvBatch } | null = null;
  return async (ids) => {
    const isSame =
      held !== null && held.ids.length === ids.length && held.ids.every((id, i) => id === ids[i]);
    if (!isSame) held = { ids, past: await floor.pastOf(ids) };
    return held!.past;
  };
}
