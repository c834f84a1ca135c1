import { readFile } from 'node:fs/promises';
import { collectGeneration } from '../../src-main/runtime';
import type { Runtime } from '../../src-main/runtime';
import type { ModelFolder } from '../../src-main/runtime/model';
import type { Timeline } from '../../src-main/telemetry/timeline';
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

/** A resident slot and a prompt no page covers (each run starts with a different first page). */
export async function residentSlotNoPage(ctx: CaseContext): Promise<CaseResult> {
  await ctx.paged.prefetch(ctx.modelId);
  const runs: CaseRun[] = [];
  for (let i = 0; i < ctx.numRuns; i++) {
    const text = promptOfTokens(ctx.folder.tokenizer, ctx.promptTokens, 2000 + i);
    const measured = await request(ctx.paged, ctx.modelId, text, ctx.maxTokens);
    runs.push({
      ...measured,
      floorPrefillMs: await ctx.floor.prefillMs(ctx.folder.tokenizer.encode(text), null),
    });
    ctx.onProgress(`resident_slot_no_context_page ${i + 1}/${ctx.numRuns}`);
  }
  return { name: 'resident_slot_no_context_page', isSlotHit: true, isPageHit: false, runs };
}

/**
 * A long shared prefix already in context pages plus a few new tokens, measured side by side
 * with the same requests on a runtime with paging off (interleaved, one run each in turn).
 * The floors are measured after the runs, so their large allocations never land (as GC) in a
 * measured request.
 */
export async function pageHitVersusOff(ctx: CaseContext): Promise<[CaseResult, CaseResult]> {
  const prefix = promptOfTokens(ctx.folder.tokenizer, ctx.cachedPrefixTokens, 7);
  await ctx.unpaged.prefetch(ctx.modelId);
  await request(ctx.paged, ctx.modelId, `${prefix} warm`, 1);
  const measured: Array<{ ids: number[]; hit: Measured; off: Measured }> = [];
  for (let i = 0; i < ctx.numRuns; i++) {
    const text = `${prefix} ${promptOfTokens(ctx.folder.tokenizer, ctx.newTokens, 3000 + i)}`;
    const hit = await request(ctx.paged, ctx.modelId, text, ctx.maxTokens);
    const off = await request(ctx.unpaged, ctx.modelId, text, ctx.maxTokens);
    measured.push({ ids: ctx.folder.tokenizer.encode(text), hit, off });
    ctx.onProgress(`resident_slot_context_page_hit ${i + 1}/${ctx.numRuns}`);
  }
  const hitRuns: CaseRun[] = [];
  const offRuns: CaseRun[] = [];
  for (const { ids, hit, off } of measured) {
    const numCached = hit.timeline.numCachedTokens;
    const past = await ctx.floor.pastOf(ids.slice(0, numCached));
    hitRuns.push({ ...hit, floorPrefillMs: await ctx.floor.prefillMs(ids.slice(numCached), past) });
    offRuns.push({ ...off, floorPrefillMs: await ctx.floor.prefillMs(ids, null) });
  }
  return [
    { name: 'resident_slot_context_page_hit', isSlotHit: true, isPageHit: true, runs: hitRuns },
    { name: 'resident_slot_context_page_off', isSlotHit: true, isPageHit: false, runs: offRuns },
  ];
}
