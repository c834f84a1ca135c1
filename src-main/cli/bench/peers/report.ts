import os from 'node:os';
import type { Percentiles } from '../load/summary';
import type { Samples, TurnRow } from './measure';
import type { PeerEngine } from './peer';
import type { PeersTarget } from './targets';
import { peersTargets, summaryOf } from './targets';
import type { PeersWorkload } from './workload';
import { describeWorkload } from './workload';

/** Where each engine's clock starts and stops. */
export const PEERS_BOUNDARY = {
  ours: 'server TTFT: runtime.submit (arrival) → first chunk handed to the sink; ITL: gaps between flushed tokens',
  floor:
    'session.run of the same token ids on the bench thread: TTFT = one prefill forward; ITL = one decode step',
  peer: 'tokenizer call + generate() → the streamer callback of the first generated token; ITL: gaps between streamer callbacks',
  clock: 'all three in this process: performance.timeOrigin + performance.now()',
} as const;

/** What the three cases measured, plus the peer (or why it could not run). */
export interface PeersResults {
  modelId: string;
  modelDir: string;
  onnxBytes: number;
  workload: PeersWorkload;
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

/** The report (--json prints it as is): workload, boundary, statistic, numbers and targets. */
export function buildPeersReport(r: PeersResults) {
  const itlOnly = (itlMs: number[]) => summaryOf({ ttftMs: [], itlMs }).itl_ms;
  return {
    benchmark: 'peers',
    model: { id: r.modelId, path: r.modelDir, onnx_bytes: r.onnxBytes },
    machine: { cpus: os.availableParallelism(), loadavg_1m: Number(os.loadavg()[0]!.toFixed(2)) },
    workload: describeWorkload(r.workload),
    boundary: PEERS_BOUNDARY,
    statistic: 'nearest-rank percentiles (p50 = median, p95); ratios are of medians',
    peer:
      'error' in r.peer
        ? { status: 'failed', error: r.peer.error }
        : {
            status: 'ok',
            package: '@huggingface/transformers',
            version: r.peer.version,
            same_token_ids: r.single.isSameTokens,
          },
    single_turn: {
      'First Frame': summaryOf(r.single.ours),
      floor: summaryOf(r.single.floor),
      peer: r.single.peer ? summaryOf(r.single.peer) : null,
    },
    multi_turn: {
      turns: r.multi.rows,
      ours_itl_ms: itlOnly(r.multi.oursItlMs),
      peer_itl_ms: 'error' in r.peer ? null : itlOnly(r.multi.peerItlMs),
    },
    concurrent: {
      requests: r.together.numRequests,
      ours_tokens_per_s: r.together.oursTokensPerS,
      ours_ttft_ms: summaryOf({ ttftMs: r.together.oursTtftMs, itlMs: [] }).ttft_ms,
      peer_sequential_tokens_per_s: r.together.peerTokensPerS,
    },
    targets: peersTargets({
      single: r.single,
      turns: r.multi.rows,
      oursTokensPerS: r.together.oursTokensPerS,
      peerTokensPerS: r.together.peerTokensPerS,
    }),
  };
}

const ms = (value: number | null | undefined): string =>
  (value == null || !Number.isFinite(value) ? 'n/a' : value.toFixed(2)).padStart(9);
const pair = (p: Percentiles) => `${ms(p.p50)}${ms(p.p95)}`;

/** The human-readable report. */
export function printPeers(report: ReturnType<typeof buildPeersReport>): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`\npeers — model ${report.model.id} (${(report.model.onnx_bytes / 1e6).toFixed(1)} MB)`);
  for (const key of ['workload', 'boundary', 'machine', 'peer'] as const)
    out(`${key}: ${JSON.stringify(report[key])}`);
  out(`statistic: ${report.statistic}`);
  out(
    `\nsingle turn (ms)     ${'TTFT p50'.padStart(9)}${'p95'.padStart(9)}${'ITL p50'.padStart(9)}${'p95'.padStart(9)}`,
  );
  for (const [name, s] of Object.entries(report.single_turn))
    out(`  ${name.padEnd(18)} ${s ? `${pair(s.ttft_ms)}${pair(s.itl_ms)}` : '  (not run)'}`);
  out('\nmulti turn (median TTFT ms)  turn  prompt  cached     ours     peer  floor(full prefill)');
  for (const r of report.multi_turn.turns)
    out(
      `  ${String(r.turn).padStart(30)} ${String(r.numPromptTokens).padStart(7)} ${String(r.numCachedTokens).padStart(7)}${ms(r.oursTtftMs)}${ms(r.peerTtftMs)}${ms(r.floorFullPrefillMs)}`,
    );
  out(
    `  ITL p50/p95: ours ${pair(report.multi_turn.ours_itl_ms)}   peer ${report.multi_turn.peer_itl_ms ? pair(report.multi_turn.peer_itl_ms) : 'n/a'}`,
  );
  const c = report.concurrent;
  out(
    `\nconcurrent: ${c.requests} requests; First Frame ${c.ours_tokens_per_s.toFixed(1)} tok/s (TTFT p50 ${ms(c.ours_ttft_ms.p50).trim()} ms), peer one at a time ${c.peer_sequential_tokens_per_s?.toFixed(1) ?? 'n/a'} tok/s\n`,
  );
  for (const t of report.targets) out(formatTarget(t));
}

function formatTarget(t: PeersTarget): string {
  const verdict = t.isMet === null ? 'N/A ' : t.isMet ? 'MET ' : 'MISS';
  return `${verdict} ${t.name.padEnd(48)} ${t.measured === null ? 'n/a'.padStart(8) : t.measured.toFixed(3).padStart(8)} (target ${t.target}) — ${t.how}`;
}
