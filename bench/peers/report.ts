import os from 'node:os';
import path from 'node:path';
import type { Percentiles } from '../load/summary';
import type { GgufConversionFigures } from './gguf-file';
import type { LlamaSection } from './llama-report';
import { llamaSectionJson, llamaTargets } from './llama-report';
import { engineTargets } from './engine-targets';
import type { Samples, TurnRow } from './measure';
import type { PeerEngine } from './peer';
import { cpuFacts, cpuLine } from './cpu-facts';
import type { ServingResults } from './serving';
import type { ServingFigures } from './serving-child';
import type { PeersTarget } from './targets';
import { peersTargets, servingTargets, summaryOf } from './targets';
import type { PeersWorkload } from './workload';
import { describeWorkload } from './workload';
import { print } from '../../src-main/printable';

/** Where each engine's clock starts and stops. */
export const PEERS_BOUNDARY = {
  ours: 'server TTFT: runtime.submit (arrival) → first chunk handed to the sink; ITL: gaps between the tokens as the worker produced them',
  floor:
    'session.run of the same token ids on the bench thread: TTFT = one prefill forward; ITL = one decode step',
  peer: 'transformers.js: tokenizer call + generate() → the streamer callback of the first generated token; ITL: gaps between streamer callbacks',
  'llama.cpp':
    'controlledEvaluate on the same token ids in this process: TTFT = prompt evaluation + greedy first token; ITL = one call feeding one id and sampling its greedy successor',
  clock: 'all three in this process: performance.timeOrigin + performance.now()',
} as const;

/** transformers.js's three cases, plus the peer (or why it could not run). */
export interface TransformersResults {
  peer: PeerEngine | { error: string };
  single: { ours: Samples; floor: Samples; peer: Samples | null; isSameTokens: boolean };
  multi: { rows: TurnRow[]; oursItlMs: number[]; peerItlMs: number[] };
  together: {
    oursTokensPerS: number;
    oursTtftMs: number[];
    peerTokensPerS: number | null;
    numRequests: number;
  };
}

/** Everything one run measured: llama.cpp's precisions and transformers.js's cases, when asked for. */
export interface PeersResults {
  modelId: string;
  modelDir: string;
  onnxBytes: number;
  workload: PeersWorkload;
  /** The thread counts llama.cpp's comparison ran at, one section each. */
  threadCounts: number[];
  llama: LlamaSection[] | null;
  transformers: TransformersResults | null;
  /** `--model FILE.gguf`: its conversion to First Frame's graph, measured before the engines ran. */
  conversion: GgufConversionFigures | null;
  /** `--model FILE.gguf`: each engine serving it in its own process (serving.ts); null when not run. */
  serving: ServingResults | null;
}

/** The report (--json prints it as is): workload, boundary, statistic, numbers and targets. */
export function buildPeersReport(r: PeersResults) {
  const transformers = r.transformers && transformersJson(r.transformers);
  return {
    benchmark: 'peers',
    model: { id: r.modelId, path: r.modelDir, onnx_bytes: r.onnxBytes },
    machine: {
      cpus: os.availableParallelism(),
      cpu: cpuFacts(),
      loadavg_1m: Number(os.loadavg()[0]!.toFixed(2)),
    },
    workload: { ...describeWorkload(r.workload), threads: r.threadCounts },
    boundary: PEERS_BOUNDARY,
    statistic: 'nearest-rank percentiles (p50 = median, p95); ratios are of medians taken in this run',
    gguf_conversion: r.conversion && {
      file: r.conversion.file,
      file_type: r.conversion.fileType,
      storage: r.conversion.storage,
      gguf_bytes: r.conversion.ggufBytes,
      onnx_bytes: r.conversion.onnxBytes,
      data_bytes: r.conversion.dataBytes,
      convert_ms: Number(r.conversion.convertMs.toFixed(1)),
      rss_before_bytes: r.conversion.rssBeforeBytes,
      peak_rss_bytes: r.conversion.peakRssBytes,
      boundary:
        'convertGguf on the bench thread (the code the app runs in its conversion thread): read, map and write every tensor, the folder renamed into place; peak RSS is the whole process (getrusage maxrss), after loading the bench',
    },
    serving: r.serving && servingJson(r.serving),
    llama_cpp: r.llama && r.llama.map(llamaSectionJson),
    transformers_js: transformers && transformers.json,
    targets: [
      // The targets name f16/q8/q4 pairs of a model folder; a GGUF run has its own one pair.
      ...(r.llama && !r.conversion ? llamaTargets(r.llama, os.availableParallelism()) : []),
      ...(r.llama && r.llama.length > 0 && !r.conversion
        ? engineTargets(r.llama, os.availableParallelism())
        : []),
      ...(transformers?.targets ?? []),
      ...(r.serving ? servingTargetsOf(r.serving) : []),
    ],
  };
}

const figuresOf = (run: ServingFigures | { error: string }): ServingFigures | null =>
  'error' in run ? null : run;

/** One serving run as the report holds it. */
type ServingRunJson =
  | { status: 'failed'; error: string }
  | {
      status: 'ok';
      start_to_first_token_ms: number;
      serving_rss_bytes: number;
      peak_rss_bytes: number;
      conversion_peak_rss_bytes: number | null;
      num_tokens: number;
    };

function servingJson(s: ServingResults) {
  const run = (figures: ServingFigures | { error: string }): ServingRunJson =>
    'error' in figures
      ? { status: 'failed', error: figures.error }
      : {
          status: 'ok',
          start_to_first_token_ms: Number(figures.startToFirstTokenMs.toFixed(1)),
          serving_rss_bytes: figures.servingRssBytes,
          peak_rss_bytes: figures.peakRssBytes,
          conversion_peak_rss_bytes: figures.conversionPeakRssBytes,
          num_tokens: figures.numTokens,
        };
  return {
    gguf_bytes: s.ggufBytes,
    data_folder_bytes: s.dataFolderBytes,
    threads: s.numThreads,
    llama_cpp_context_size: s.contextSize,
    first_frame_cold: run(s.cold),
    first_frame_warm: run(s.warm),
    llama_cpp: run(s.llamaCpp),
    boundary:
      "each run a child process of its own answering one 16-token greedy chat request; RSS = process.memoryUsage().rss after the answer (session loaded), peak = getrusage maxrss; cold = fresh data folder, the file hard-linked into a fresh models folder; warm = the same data folder, a new process; First Frame's K/V grows with the tokens held, llama.cpp's context is allocated at open, its batch 512 (its default)",
  };
}

function servingTargetsOf(s: ServingResults): PeersTarget[] {
  const cold = figuresOf(s.cold);
  const warm = figuresOf(s.warm);
  const peer = figuresOf(s.llamaCpp);
  return servingTargets({
    oursServingRssBytes: warm?.servingRssBytes ?? null,
    peerServingRssBytes: peer?.servingRssBytes ?? null,
    dataFolderBytes: s.dataFolderBytes,
    ggufBytes: s.ggufBytes,
    oursColdFirstTokenMs: cold?.startToFirstTokenMs ?? null,
    oursWarmFirstTokenMs: warm?.startToFirstTokenMs ?? null,
    peerFirstTokenMs: peer?.startToFirstTokenMs ?? null,
    conversionPeakRssBytes: cold?.conversionPeakRssBytes ?? null,
  });
}

function transformersJson(t: TransformersResults) {
  const itlOnly = (itlMs: number[]) => summaryOf({ ttftMs: [], itlMs }).itl_ms;
  const json = {
    peer:
      'error' in t.peer
        ? { status: 'failed', error: t.peer.error }
        : {
            status: 'ok',
            package: '@huggingface/transformers',
            version: t.peer.version,
            same_token_ids: t.single.isSameTokens,
          },
    single_turn: {
      'First Frame': summaryOf(t.single.ours),
      floor: summaryOf(t.single.floor),
      peer: t.single.peer ? summaryOf(t.single.peer) : null,
    },
    multi_turn: {
      turns: t.multi.rows,
      ours_itl_ms: itlOnly(t.multi.oursItlMs),
      peer_itl_ms: 'error' in t.peer ? null : itlOnly(t.multi.peerItlMs),
    },
    concurrent: {
      requests: t.together.numRequests,
      ours_tokens_per_s: t.together.oursTokensPerS,
      ours_ttft_ms: summaryOf({ ttftMs: t.together.oursTtftMs, itlMs: [] }).ttft_ms,
      peer_sequential_tokens_per_s: t.together.peerTokensPerS,
    },
  };
  const targets = peersTargets({
    single: t.single,
    turns: t.multi.rows,
    oursTokensPerS: t.together.oursTokensPerS,
    peerTokensPerS: t.together.peerTokensPerS,
  });
  return { json, targets };
}

const ms = (value: number | null | undefined): string =>
  (value == null || !Number.isFinite(value) ? 'n/a' : value.toFixed(2)).padStart(9);
const pair = (p: Percentiles) => `${ms(p.p50)}${ms(p.p95)}`;

/** The human-readable report. */
export function printPeers(report: ReturnType<typeof buildPeersReport>): void {
  const out = (line = '') => print(line);
  out(`\npeers — model ${report.model.id} (${(report.model.onnx_bytes / 1e6).toFixed(1)} MB)`);
  out(`cpu: ${cpuLine(report.machine.cpu)}`);
  for (const key of ['workload', 'boundary', 'machine'] as const)
    out(`${key}: ${JSON.stringify(report[key])}`);
  out(`statistic: ${report.statistic}`);
  const c = report.gguf_conversion;
  if (c)
    out(
      `conversion of ${path.basename(c.file)} (${c.file_type}, ${(c.gguf_bytes / 1e6).toFixed(1)} MB → ${c.storage}, ${((c.onnx_bytes + c.data_bytes) / 1e6).toFixed(1)} MB): ${(c.convert_ms / 1000).toFixed(2)} s, peak RSS ${(c.peak_rss_bytes / 2 ** 20).toFixed(0)} MiB (${(c.rss_before_bytes / 2 ** 20).toFixed(0)} MiB before)`,
    );
  if (report.serving) printServing(report.serving, out);
  for (const section of report.llama_cpp ?? []) printLlama(section, cpuLine(report.machine.cpu), out);
  if (report.transformers_js) printTransformers(report.transformers_js, out);
  out();
  for (const t of report.targets) out(formatTarget(t));
}

function printServing(s: ReturnType<typeof servingJson>, out: (line?: string) => void): void {
  const mb = (bytes: number | null | undefined) => (bytes == null ? 'n/a' : `${(bytes / 1e6).toFixed(0)} MB`);
  out(
    `\nserving, each engine in its own process at ${s.threads} thread(s) (llama.cpp context ${s.llama_cpp_context_size}):`,
  );
  out(
    `${'run'.padEnd(22)}${'first token'.padStart(14)}${'serving RSS'.padStart(14)}${'peak RSS'.padStart(12)}`,
  );
  const runs = {
    'First Frame cold': s.first_frame_cold,
    'First Frame warm': s.first_frame_warm,
    'llama.cpp': s.llama_cpp,
  };
  for (const [name, run] of Object.entries(runs)) {
    if (run.status !== 'ok') {
      out(`  ${name.padEnd(20)} failed: ${run.error}`);
      continue;
    }
    out(
      `  ${name.padEnd(20)}${`${(run.start_to_first_token_ms / 1000).toFixed(1)} s`.padStart(14)}${mb(run.serving_rss_bytes).padStart(14)}${mb(run.peak_rss_bytes).padStart(12)}`,
    );
  }
  const cold = s.first_frame_cold;
  if (cold.status === 'ok') out(`  conversion peak RSS (sampled): ${mb(cold.conversion_peak_rss_bytes)}`);
  out(`  data folder after the first load: ${mb(s.data_folder_bytes)} (the GGUF: ${mb(s.gguf_bytes)})`);
}

function printLlama(
  section: ReturnType<typeof llamaSectionJson>,
  cpu: string,
  out: (line?: string) => void,
): void {
  out(
    `\nllama.cpp at ${section.threads} thread(s), ~${section.prompt_tokens}-token prompts: ${JSON.stringify(section.engine)}`,
  );
  // Beside every table: its figures compare only with figures of the same CPU.
  out(`on ${cpu}`);
  out(`First Frame and the floor: ${section.first_frame_threads}`);
  if (section.read_bandwidth)
    out(
      `read bandwidth ${section.read_bandwidth.gb_per_s.toFixed(1)} GB/s (${section.read_bandwidth.boundary})`,
    );
  out(
    `${'precision / engine'.padEnd(24)}${'TTFT p50'.padStart(9)}${'p95'.padStart(9)}${'ITL p50'.padStart(9)}${'p95'.padStart(9)}   roofline`,
  );
  for (const p of section.precisions) {
    if (p.status !== 'ok' || !('engines' in p)) {
      out(`  ${p.precision.padEnd(22)} not run: ${'reason' in p ? p.reason : ''}`);
      continue;
    }
    for (const [name, s] of Object.entries(p.engines)) {
      const roof = p.roofline?.[name as 'First Frame' | 'llama.cpp'];
      const roofText = roof
        ? `${(roof.weight_bytes_per_token / 1e6).toFixed(0)} MB/token → ${roof.achieved_gb_per_s?.toFixed(1) ?? 'n/a'} GB/s (${((roof.share_of_read_bandwidth ?? 0) * 100).toFixed(0)} % of read bandwidth)`
        : '';
      out(`  ${`${p.precision} ${name}`.padEnd(22)}${pair(s.ttft_ms)}${pair(s.itl_ms)}   ${roofText}`);
    }
    out(
      `  ${p.precision}: greedy check ${p.greedy_check.same}/${p.greedy_check.compared} same; teacher-forced agreement ${(p.teacher_forced_agreement * 100).toFixed(1)} %`,
    );
  }
}

function printTransformers(
  t: NonNullable<ReturnType<typeof buildPeersReport>['transformers_js']>,
  out: (line?: string) => void,
): void {
  out(`\ntransformers.js: ${JSON.stringify(t.peer)}`);
  out(
    `single turn (ms)     ${'TTFT p50'.padStart(9)}${'p95'.padStart(9)}${'ITL p50'.padStart(9)}${'p95'.padStart(9)}`,
  );
  for (const [name, s] of Object.entries(t.single_turn))
    out(`  ${name.padEnd(18)} ${s ? `${pair(s.ttft_ms)}${pair(s.itl_ms)}` : '  (not run)'}`);
  out('\nmulti turn (median TTFT ms)  turn  prompt  cached     ours     peer  floor(full prefill)');
  for (const r of t.multi_turn.turns)
    out(
      `  ${String(r.turn).padStart(30)} ${String(r.numPromptTokens).padStart(7)} ${String(r.numCachedTokens).padStart(7)}${ms(r.oursTtftMs)}${ms(r.peerTtftMs)}${ms(r.floorFullPrefillMs)}`,
    );
  out(
    `  ITL p50/p95: ours ${pair(t.multi_turn.ours_itl_ms)}   peer ${t.multi_turn.peer_itl_ms ? pair(t.multi_turn.peer_itl_ms) : 'n/a'}`,
  );
  const c = t.concurrent;
  out(
    `\nconcurrent: ${c.requests} requests; First Frame ${c.ours_tokens_per_s.toFixed(1)} tok/s (TTFT p50 ${ms(c.ours_ttft_ms.p50).trim()} ms), peer one at a time ${c.peer_sequential_tokens_per_s?.toFixed(1) ?? 'n/a'} tok/s`,
  );
}

function formatTarget(t: PeersTarget): string {
  const verdict = t.isMet === null ? 'N/A ' : t.isMet ? 'MET ' : 'MISS';
  return `${verdict} ${t.name.padEnd(48)} ${t.measured === null ? 'n/a'.padStart(8) : t.measured.toFixed(3).padStart(8)} (target ${t.target}) — ${t.how}`;
}
