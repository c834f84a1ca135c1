/**
 * `npm run bench -- first-frame [--model DIR] [--variant NAME] [--runs N] [--json]`: seed 000's first-frame
 * benchmark through the real runtime, with the floor (bare session.run) measured in the same
 * process. Boundary: server TTFT, arrival at the runtime → first chunk handed to the sink.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultRuntimeOptions } from '../../src-main/runtime/runtime-options';
import { slotSessionThreadsOf, slotThreadsOf } from '../../src-main/runtime/runtime-parts';
import { Runtime } from '../../src-main/runtime/runtime';
import { modelRefFor } from '../../src-main/cli/paths';
import { modelDirOf } from '../run-options';
import { coldSlotNoPage, pageHitVersusOff, residentSlotNoPage } from './cases';
import type { CaseContext, CaseResult } from './cases';
import { measurePrefetchArms } from '../prefetch';
import { measureDecode, median } from './decode';
import { Floor } from './floor';
import { printTable } from './table';
import {
  caseJson,
  seedPhasesOf,
  stepNodesCheck,
  targetChecks,
  warmOverheadOf,
  warmPathChecks,
} from './summary';
import type { StepNodeCounts } from './summary';
import { profiledStepNodes } from './step-nodes';
import { measureThreadHops } from './thread-hops';
import { print, printStatus } from '../../src-main/printable';
import { measureRestartHit, restartHitChecks } from './restart-hit';
import type { RestartHitResult } from './restart-hit';
import { measureSpillItl, spillItlCheck } from './spill-itl';

/** `npm run bench -- first-frame …`: measures each case, prints the table and target checks; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      variant: { type: 'string' },
      runs: { type: 'string', default: '10' },
      json: { type: 'boolean', default: false },
      threads: { type: 'string' },
      /**
       * `restart-hit`: only the remembered-context case (a restart hit against a RAM hit and a
       * recompute); `spill-itl`: only a decode step's ITL while pages are written to disk;
       * `warm`: only the resident-slot request and the warm path's two targets (quick to repeat).
       */
      only: { type: 'string' },
      'conversation-tokens': { type: 'string', default: '2000' },
    },
  });
  const modelDir = modelDirOf(values.model);
  const numThreads = Number(values.threads ?? slotThreadsOf(defaultRuntimeOptions({ bundledModelsDir: '' })));
  // A fresh optimized-graph cache: the first cold load builds and saves it, the others build from it.
  const graphCacheDir = mkdtempSync(path.join(os.tmpdir(), 'ff-bench-graphs-'));
  const common = {
    bundledModelsDir: path.dirname(modelDir),
    graphCacheDir,
    numThreads,
    prefillChunkTokens: null,
    kvBudgetBytes: 1024 * 1024 * 1024,
    // The floor and the profiled step run the model's file as it is: so do the slots, or a naive
    // export fused at load would be compared with its own exported graph.
    canFuseAtLoad: false,
  };
  const paged = await Runtime.create({ ...common, isPaging: true });
  const unpaged = await Runtime.create({ ...common, isPaging: false, maxSeats: 4 });
  const entry = paged.catalogue.entryOf(modelRefFor(modelDir, values.variant)!);
  if (entry?.status !== 'ok')
    throw new Error(
      entry?.status === 'broken'
        ? entry.error
        : `no model ${modelRefFor(modelDir, values.variant)} at ${modelDir}`,
    );
  const modelId = entry.modelId;
  // The floor and the profiled step run their threads as the slots do (the runtime's settings).
  const threads = slotSessionThreadsOf(paged.options);
  const floor = await Floor.open(entry.model, threads);
  const log = (label: string) => values.json || printStatus(label, 48);
  const ctx: CaseContext = {
    paged,
    unpaged,
    floor,
    folder: entry.model.folder,
    onnxPath: entry.model.graph.onnxPath,
    modelId,
    numRuns: Number(values.runs),
    promptTokens: 128,
    cachedPrefixTokens: 1024,
    newTokens: 20,
    maxTokens: 16,
    onProgress: log,
  };
  const restartHit = () =>
    measureRestartHit(
      common,
      unpaged,
      modelId,
      entry.model.folder.tokenizer,
      Number(values['conversation-tokens']),
      Math.min(ctx.numRuns, 5),
      log,
    );
  try {
    if (values.only === 'spill-itl') {
      const tokens = Number(values['conversation-tokens']);
      const result = await measureSpillItl(
        common,
        modelId,
        entry.model.folder.tokenizer,
        tokens,
        ctx.numRuns,
        log,
      );
      print(JSON.stringify({ spill_itl: result, targets: [spillItlCheck(result)] }, null, 2));
      return 0;
    }
    if (values.only === 'restart-hit') {
      await unpaged.prefetch(modelId);
      const result = await restartHit();
      print(
        JSON.stringify({ restart_hit: restartHitJson(result), targets: restartHitChecks(result) }, null, 2),
      );
      return 0;
    }
    if (values.only === 'warm') {
      print(
        JSON.stringify(
          await warmOnlyReport(ctx, floor.sampleMs(entry.model.folder.shape.vocabSize)),
          null,
          2,
        ),
      );
      return 0;
    }
    const cold = await coldSlotNoPage(ctx);
    const warm = await residentSlotNoPage(ctx);
    const cases = [cold, warm, ...(await pageHitVersusOff(ctx))];
    const decode = await measureDecode(ctx, 64, 4);
    log('cold prefetch arms');
    const prefetch = await measurePrefetchArms(entry.model.graph.onnxPath, 5, true);
    const sampleMs = floor.sampleMs(entry.model.folder.shape.vocabSize);
    log('bare thread hops');
    const hops = await hopsBeside(warm);
    log('restart hit');
    const restart = await restartHit();
    const pagedSlot = paged.slots().find((s) => s.model.modelId === modelId);
    const slot = pagedSlot?.host;
    log('profiled decode step');
    const stepNodes: StepNodeCounts = {
      profiled: await profiledStepNodes(entry.model, threads),
      slot: pagedSlot?.stepNodes?.count ?? null,
      numLayers: entry.model.folder.shape.numLayers,
    };
    const report = {
      benchmark: 'first-frame-runtime-path',
      model: {
        id: modelId,
        path: modelDir,
        params_bytes: entry.model.graph.weightBytes,
        revision: entry.model.revisions.modelRevision.slice(0, 16),
      },
      workload: {
        runs: ctx.numRuns,
        prompt_tokens: ctx.promptTokens,
        cached_prefix_tokens: ctx.cachedPrefixTokens,
        new_tokens: ctx.newTokens,
        max_tokens: ctx.maxTokens,
        threads: numThreads,
        threads_spin: threads.canSpinThreads,
        sampling: 'greedy',
      },
      boundary:
        'server TTFT: arrival at the runtime → first chunk handed to the sink; floor: bare session.run of the same uncached tokens on the bench thread',
      statistic:
        "phase_ms (seed 000's names: route, slot_activation, context_lookup, prefill, decode_first_token, first_chunk_flush, plus slot_load, queue, unattributed), parts_ms (the timeline's parts), first_chunk_ms, full_response_ms, floor_prefill_ms are means over runs (they decompose); medians beside them (parts_median_ms: each part's median, robust to one run's outlier, not a decomposition)",
      slot: {
        pinned: slot?.isPinned ?? false,
        pinned_reason: slot?.pinnedReason ?? null,
        locked_bytes: slot?.lockedBytes ?? 0,
        resident_pct: slot?.residentPct ?? null,
      },
      runs: cases.map(caseJson),
      warm_by_run: warmByRun(warm, sampleMs),
      decode: {
        steps: decode.numSteps,
        engine_itl_median_ms: decode.engineItlMedianMs,
        raw_step_median_ms: decode.rawStepMedianMs,
        single_tokens_per_s: decode.singleTokensPerS,
        concurrent_tokens_per_s: decode.concurrentTokensPerS,
        concurrent_sequences: decode.numConcurrent,
      },
      raw_sample_ms: sampleMs,
      decode_nodes_per_step: {
        boundary:
          'ONNX Runtime kernel events in one profiled decode step; slot: counted in its saved optimized graph',
        profiled: stepNodes.profiled,
        slot: stepNodes.slot,
        layers: stepNodes.numLayers,
      },
      thread_hops: {
        boundary: `bare worker, ${hops.idleMs} ms idle before each job: inbound = post → its handler runs; reply = the worker posts after spinning busy_ms → the main thread handler runs`,
        statistic: 'median',
        inbound_ms: hops.inboundMs,
        reply_ms: hops.replyMs,
        busy_ms: hops.busyMs,
        idle_ms: hops.idleMs,
        num_runs: hops.numRuns,
      },
      prefetch: {
        boundary: prefetch.boundary,
        statistic: 'nearest-rank median and p95 of 5 interleaved cold reads per arm',
        page_cache: prefetch.pageCache,
        memlock: prefetch.memlock.note,
        arms: prefetch.arms.map((a) => ({
          arm: a.arm,
          median_ms: a.total.medianMs,
          p95_ms: a.total.p95Ms,
          num_cold: a.numCold,
          slot: a.slot,
        })),
        ratios: prefetch.ratios,
      },
      restart_hit: restartHitJson(restart),
      targets: [
        ...targetChecks(cases, decode, sampleMs, hops),
        stepNodesCheck(stepNodes),
        ...restartHitChecks(restart),
      ],
    };
    if (values.json) print(JSON.stringify(report, null, 2));
    else printTable(report);
    return 0;
  } finally {
    await floor.close();
    await paged.close();
    await unpaged.close();
    rmSync(graphCacheDir, { recursive: true, force: true });
  }
}

const round3 = (ms: number): number => Number(ms.toFixed(3));

/** The two bare thread hops, the worker kept busy as long as the warm case's median forward. */
function hopsBeside(warm: CaseResult) {
  return measureThreadHops(median(warm.runs.map((r) => r.timeline.parts.prefill)), 15);
}

/**
 * The warm request's overhead and phases (prefill left out) run by run, in arrival order, so a
 * reader sees whether the first runs (a colder JIT) differ from the rest, and in which part an
 * outlier sits.
 */
function warmByRun(warm: CaseResult, sampleMs: number) {
  return warm.runs.map((r) => ({
    overhead_ms: round3(warmOverheadOf(r, sampleMs)),
    ...Object.fromEntries(
      Object.entries(seedPhasesOf(r))
        .filter(([phase]) => phase !== 'prefill')
        .map(([phase, ms]) => [phase, round3(ms)]),
    ),
  }));
}

/**
 * The warm request alone: its median parts and the warm path's two targets, with the bare thread
 * hops measured right after in the same process.
 */
async function warmOnlyReport(ctx: CaseContext, sampleMs: number) {
  const warm = await residentSlotNoPage(ctx);
  const hops = await hopsBeside(warm);
  const [overhead, beyondHops] = warmPathChecks(warm, sampleMs, hops);
  return {
    warm: caseJson(warm),
    raw_sample_ms: sampleMs,
    by_run: warmByRun(warm, sampleMs),
    targets: [overhead, beyondHops],
  };
}

/** The restart-hit case in the report's snake_case, with its boundary and statistic. */
function restartHitJson(r: RestartHitResult) {
  return {
    boundary:
      'server TTFT of a conversation of conversation_tokens + ~20 new tokens, 1 output token: recomputed (paging off), RAM hit (same process), restart hit (fresh runtime on the same data folder, slot loaded before the request; restart_hit_*: sent after an unrelated request and the end of the prefetch of its pages into RAM; immediate_restart_hit_*: sent the moment the slot finished loading, racing the prefetch, session cold)',
    statistic:
      "median over runs; disk read: the immediate hits' diagnosis diskRead (main-thread stamps around reading, checking and storing the pages)",
    conversation_tokens: r.conversationTokens,
    runs: r.numRuns,
    file_cache: r.fileCache,
    ram_hit_ttft_ms: r.ramHitTtftMs,
    restart_hit_ttft_ms: r.restartHitTtftMs,
    immediate_restart_hit_ttft_ms: r.immediateRestartHitTtftMs,
    last_immediate_parts_ms: r.lastImmediateParts,
    prefetched_pages: r.numPrefetchedPages,
    recompute_ttft_ms: r.recomputeTtftMs,
    disk_read_ms: r.diskReadMs,
    disk_read_bytes: r.diskReadBytes,
    plain_read_mb_per_s: r.plainReadBytesPerMs / 1000,
    written_bytes_per_token: r.writtenBytesPerToken,
    last_restart_parts_ms: r.lastRestartParts,
    last_restart_cached_tokens: r.lastRestartCachedTokens,
    last_ram_hit_parts_ms: r.lastRamParts,
    restart_hit_ttft_over_ram_hit: r.ratios.restartOverRamHit,
    immediate_restart_hit_ttft_over_ram_hit: r.ratios.immediateRestartOverRamHit,
    restart_hit_ttft_over_recompute: r.ratios.restartOverRecompute,
    disk_read_share_of_plain_read: r.ratios.readShareOfPlainRead,
    after_route_ms: {
      ram_hit: r.afterRoute.ramHitMs,
      restart_hit: r.afterRoute.restartHitMs,
      recompute: r.afterRoute.recomputeMs,
    },
    restart_hit_over_ram_hit_after_route: r.ratios.restartOverRamHitAfterRoute,
    restart_hit_over_recompute_after_route: r.ratios.restartOverRecomputeAfterRoute,
  };
}
