import { TTFT_PARTS } from '../../src-main/telemetry/timeline/parts';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import type { CaseResult, CaseRun, Measured } from './cases';
import type { DecodeResult } from './decode';
import { median } from './decode';
import type { ThreadHops } from './thread-hops';

const mean = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
/** A run's TTFT; NaN when it never produced a token, so every ratio and target it enters fails. */
const ttftOf = (run: Measured): number => run.timeline.ttftMs ?? Number.NaN;

/**
 * A warm request's engine overhead (ms): its TTFT less its own forward (the prefill part) and a
 * raw greedy sample of `sampleMs`; what the warm path's targets take the median of.
 */
export const warmOverheadOf = (run: Measured, sampleMs: number): number =>
  ttftOf(run) - run.timeline.parts.prefill - sampleMs;
const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * One run's first token in seed 000's phase names, from independent stamps; they sum to its
 * TTFT. `route` is the inbox plus routing, `slot_activation` our activation, and today's
 * `emit` is split at the instant the first chunk reached the sink: `decode_first_token` runs
 * from the first token's logits to there (sampling in the worker, the reply's thread hop,
 * detokenizing), `first_chunk_flush` from there to the flush stamp. `slot_load`, `queue`
 * (with requeue and lost prefill) and `unattributed` are ours: the seed's warm path has none.
 */
export function seedPhasesOf(run: CaseRun): Record<string, number> {
  const t = run.timeline;
  const p = t.parts;
  const firstTokenAt = t.firstTokenAt ?? Number.NaN;
  const emitStartAt = t.transitions.findLast((x) => x.state === 'emit' && x.at <= firstTokenAt)?.at;
  const decodeFirstMs = emitStartAt === undefined ? Number.NaN : run.firstChunkHandedAt - emitStartAt;
  return {
    route: p.inbox + p.route,
    slot_load: p.slotLoad,
    queue: p.queue + p.requeue + p.lostPrefill,
    slot_activation: p.activation,
    context_lookup: p.contextLookup,
    prefill: p.prefill,
    decode_first_token: decodeFirstMs,
    first_chunk_flush: firstTokenAt - run.firstChunkHandedAt,
    unattributed: t.unattributedMs,
  };
}

/** The timeline's parts (and `unattributed`) over runs, by one statistic, in snake_case. */
function partsOf(timelines: readonly Timeline[], statistic: (values: number[]) => number) {
  const partsMs: Record<string, number> = {};
  for (const part of TTFT_PARTS) partsMs[snake(part)] = statistic(timelines.map((t) => t.parts[part]));
  partsMs['unattributed'] = statistic(timelines.map((t) => t.unattributedMs));
  return partsMs;
}

/**
 * One case in seed 000's shape. `phase_ms` (seed 000's names), `parts_ms` (the timeline's own
 * parts), `first_chunk_ms` and `full_response_ms` are means over the runs, because means
 * decompose: either set of phases sums to `first_chunk_ms`. `parts_median_ms` are the parts'
 * medians: they do not sum to anything, but one run's outlier does not move them.
 */
export function caseJson(result: CaseResult) {
  const timelines = result.runs.map((r) => r.timeline);
  const seed = result.runs.map(seedPhasesOf);
  const phaseMs = Object.fromEntries(
    Object.keys(seed[0] ?? {}).map((k) => [k, mean(seed.map((s) => s[k]!))]),
  );
  const ttfts = timelines.map((t) => t.ttftMs ?? Number.NaN);
  return {
    case: result.name,
    slot_hit: result.isSlotHit,
    context_page_hit: result.isPageHit,
    num_runs: result.runs.length,
    prompt_tokens: mean(timelines.map((t) => t.numPromptTokens)),
    cached_tokens: mean(timelines.map((t) => t.numCachedTokens)),
    phase_ms: phaseMs,
    parts_ms: partsOf(timelines, mean),
    parts_median_ms: partsOf(timelines, median),
    first_chunk_ms: mean(ttfts),
    full_response_ms: mean(timelines.map((t) => t.e2eMs)),
    floor_prefill_ms: mean(result.runs.map((r) => r.floorPrefillMs)),
    median_first_chunk_ms: median(ttfts),
    median_floor_prefill_ms: median(result.runs.map((r) => r.floorPrefillMs)),
    ...(result.runs[0]?.fileReadMs === undefined
      ? {}
      : {
          median_slot_load_ms: median(timelines.map((t) => t.parts.slotLoad)),
          median_file_read_ms: median(result.runs.map((r) => r.fileReadMs ?? Number.NaN)),
          graph_cache: result.runs.map((r) => r.graphCache ?? 'off'),
          spare_at_load: result.runs.map((r) => r.spareAtLoad ?? 'off'),
          median_spare_start_ms: medianOrNull(result.runs.map((r) => r.spareStartMs ?? null)),
        }),
  };
}

/** The median of the values that were measured, or null when none was. */
function medianOrNull(values: readonly (number | null)[]): number | null {
  const measured = values.filter((v): v is number => v !== null);
  return measured.length > 0 ? median(measured) : null;
}

/** A target with what was measured, so a reader sees both the number and the verdict. */
export interface TargetCheck {
  name: string;
  measured: number;
  target: string;
  isMet: boolean;
  how: string;
}

/** Nodes a decode step runs: counted in a profile of one, and as the slot counted them. */
export interface StepNodeCounts {
  profiled: number;
  slot: number | null;
  numLayers: number;
}

/** decode_nodes_per_step: what one profiled decode step ran, against 12 per layer + 10. */
export function stepNodesCheck(nodes: StepNodeCounts): TargetCheck {
  const limit = 12 * nodes.numLayers + 10;
  return {
    name: 'decode_nodes_per_step',
    measured: nodes.profiled,
    target: `≤ ${limit} (12 per layer + 10)`,
    isMet: nodes.profiled <= limit,
    how: `ONNX Runtime kernel events in one profiled decode step of the slot's graph (its load rewrites, after a 4-token prefill); the slot's count from its saved optimized graph: ${nodes.slot ?? 'none'}`,
  };
}

/**
 * The warm path's two targets from the resident-slot case: the engine's overhead on the first
 * token, and the same less the two bare thread hops measured in this run (issue 38's form).
 */
export function warmPathChecks(warm: CaseResult, sampleMs: number, hops: ThreadHops): TargetCheck[] {
  // The request's own forward (its prefill part: contextReadyAt → logitsAt around session.run in
  // the worker) is the raw prefill of exactly these tokens; a forward timed separately (the
  // floor) varies by more than 1 ms between runs on a ~100M model, so it is reported beside.
  const overheadOf = (run: Measured) => warmOverheadOf(run, sampleMs);
  const overheadMs = median(warm.runs.map(overheadOf));
  const beyondHopsMs = overheadMs - hops.inboundMs - hops.replyMs;
  const versusFloorMs = median(warm.runs.map((r) => ttftOf(r) - r.floorPrefillMs - sampleMs));
  const warmUp = warm.warmUp ?? [];
  const warmUpNote =
    warmUp.length === 0
      ? ''
      : `; after ${warmUp.length} unmeasured requests (the new slot worker's JIT warm-up), whose median was ${median(warmUp.map(overheadOf)).toFixed(2)} ms`;
  return [
    {
      name: 'warm_path_engine_overhead_ms',
      measured: overheadMs,
      target: '≤ 1 ms',
      isMet: overheadMs <= 1,
      how: `median over runs of (TTFT − the request's own session.run of its tokens − raw greedy sample); against a separately timed floor run: ${versusFloorMs.toFixed(2)} ms; of it, two bare thread hops on this machine (a job to an idle worker ${hops.inboundMs.toFixed(2)} ms, a reply after ${hops.busyMs.toFixed(0)} ms busy ${hops.replyMs.toFixed(2)} ms, medians of ${hops.numRuns})${warmUpNote}`,
    },
    {
      // Issue 38's form of the same figure: the engine's own work, the two hops taken off.
      name: 'warm_path_engine_work_beyond_hops_ms',
      measured: beyondHopsMs,
      target: '≤ 1 ms',
      isMet: beyondHopsMs <= 1,
      how: `warm_path_engine_overhead_ms less the two bare thread hops measured in this run (${hops.inboundMs.toFixed(2)} + ${hops.replyMs.toFixed(2)} ms): the main thread's and the worker's own code on the first token's path`,
    },
  ];
}

/**
 * The targets, computed from cases measured in this same run; `hops` (bare thread hops
 * after a forward-long wait) is the floor under the warm-path overhead, printed beside it.
 */
export function targetChecks(
  cases: CaseResult[],
  decode: DecodeResult,
  sampleMs: number,
  hops: ThreadHops,
): TargetCheck[] {
  const byName = new Map(cases.map((c) => [c.name, c]));
  const cold = byName.get('cold_slot_no_context_page')!;
  const warm = byName.get('resident_slot_no_context_page')!;
  const hit = byName.get('resident_slot_context_page_hit')!;
  const off = byName.get('resident_slot_context_page_off')!;
  const hitRatio = mean(hit.runs.map(ttftOf)) / mean(off.runs.map(ttftOf));
  const itlRatio = decode.engineItlMedianMs / decode.rawStepMedianMs;
  const hitFloorRatio = median(hit.runs.map(ttftOf)) / median(hit.runs.map((r) => r.floorPrefillMs));
  const coldRuns = cold.runs.slice(1); // the first load builds and saves the optimized graph
  const coldRatio =
    median(coldRuns.map((r) => r.timeline.parts.slotLoad)) /
    median(coldRuns.map((r) => r.fileReadMs ?? Number.NaN));
  const spareStartMs = medianOrNull(cold.runs.map((r) => r.spareStartMs ?? null));
  // With a ready spare the load skips the thread's start; a load that finds none (a request right
  // at app start, or two loads back to back) pays it on top: printed so the boundary stays plain.
  const spareNote =
    spareStartMs === null
      ? 'no spare slot worker'
      : `spare worker at load: ${coldRuns.map((r) => r.spareAtLoad ?? 'off').join(', ')}; a load without a ready spare also pays its start, median ${spareStartMs.toFixed(0)} ms`;
  const throughputRatio = decode.concurrentTokensPerS / decode.singleTokensPerS;
  return [
    ...warmPathChecks(warm, sampleMs, hops),
    {
      name: 'page_hit_ttft_over_paging_off',
      measured: hitRatio,
      target: '≤ 0.15',
      isMet: hitRatio <= 0.15,
      how: `mean TTFT with ${mean(hit.runs.map((r) => r.timeline.numCachedTokens)).toFixed(0)} cached tokens ÷ mean TTFT of the same requests with paging off`,
    },
    {
      name: 'page_hit_ttft_over_floor',
      measured: hitFloorRatio,
      target: '≤ 1.10',
      isMet: hitFloorRatio <= 1.1,
      how: `median TTFT with ${mean(hit.runs.map((r) => r.timeline.numCachedTokens)).toFixed(0)} cached tokens ÷ median bare session.run of the same new tokens over an already-assembled past`,
    },
    {
      name: 'cold_slot_load_over_file_read',
      measured: coldRatio,
      target: '≤ 3.0',
      isMet: coldRatio <= 3,
      how: `median slotLoad of cold runs 2–${cold.runs.length} (graph cache: ${coldRuns.map((r) => r.graphCache ?? 'off').join(', ')}) ÷ median read of the model file from page cache right after each load; run 1 (${cold.runs[0]?.graphCache ?? 'off'}): ${cold.runs[0]?.timeline.parts.slotLoad.toFixed(0)} ms; ${spareNote}`,
    },
    {
      name: 'decode_itl_over_raw_loop',
      measured: itlRatio,
      target: '≤ 1.10',
      isMet: itlRatio <= 1.1,
      how: `median inter-token gap at one sequence ÷ median raw decode step (${decode.numSteps} steps × 3)`,
    },
    {
      name: 'throughput_concurrent_over_single',
      measured: throughputRatio,
      target: '≥ 2.0',
      isMet: throughputRatio >= 2,
      how: `output tokens/s with ${decode.numConcurrent} concurrent sequences ÷ one sequence, first arrival → last finish`,
    },
  ];
}
