import type { ChatTurn } from '../../src-main/runtime/tokenize/tokenizer';
import type { Runtime } from '../../src-main/runtime/runtime';
import { nearestRankSorted } from '../../src-main/telemetry/report/nearest-rank';
import type { ModelFolder } from '../../src-main/runtime/model/load-folder';
import type { Floor } from '../first-frame/floor';
import type { OursRun } from './ours';
import { askOurs, oursConcurrent, oursTokensPerS } from './ours';
import type { PeerEngine, PeerRun } from './peer';
import type { PeersWorkload } from './workload';
import { singleTurnPrompts, userMessage } from './workload';

/** What every case needs: the three engines on one model folder, and the workload. */
export interface PeersContext {
  runtime: Runtime;
  modelId: string;
  folder: ModelFolder;
  floor: Floor;
  peer: PeerEngine | null;
  workload: PeersWorkload;
  onProgress: (label: string) => void;
}

/** TTFT and ITL samples of one engine (ms). */
export interface Samples {
  ttftMs: number[];
  itlMs: number[];
}

/** One turn of the multi-turn conversations, side by side (medians over the conversations). */
export interface TurnRow {
  turn: number;
  numPromptTokens: number;
  numCachedTokens: number;
  oursTtftMs: number;
  peerTtftMs: number | null;
  floorFullPrefillMs: number;
}

/** The single-turn case: TTFT and ITL of each engine on the same prompts, interleaved. */
export async function singleTurn(
  ctx: PeersContext,
): Promise<{ ours: Samples; floor: Samples; peer: Samples | null; isSameTokens: boolean }> {
  const ours: Samples = { ttftMs: [], itlMs: [] };
  const floor: Samples = { ttftMs: [], itlMs: [] };
  const peer: Samples = { ttftMs: [], itlMs: [] };
  let isSameTokens = true;
  for (const [i, messages] of singleTurnPrompts(ctx.folder.tokenizer, ctx.workload).entries()) {
    const run = await askOurs(ctx.runtime, ctx.modelId, messages, ctx.workload.numOutputTokens);
    add(ours, run.timeline.ttftMs ?? Number.NaN, run.timeline.itlMs);
    const ids = idsOf(ctx, messages);
    add(
      floor,
      await ctx.floor.prefillMs(ids, null),
      await ctx.floor.decodeStepsMs(ids, ctx.workload.numOutputTokens - 1),
    );
    const peerRun = await peerGenerate(ctx, messages);
    if (peerRun) add(peer, peerRun.ttftMs, peerRun.itlMs);
    if (peerRun && peerRun.inputIds.join() !== ids.join()) isSameTokens = false;
    ctx.onProgress(`single turn ${i + 1}/${ctx.workload.numRuns}`);
  }
  return { ours, floor, peer: ctx.peer ? peer : null, isSameTokens };
}

/**
 * `numConversationRuns` conversations of `numTurns` turns each, one after another, with paging
 * on; the peer and the floor redo the whole history every turn. Rows hold per-turn medians.
 */
export async function multiTurn(
  ctx: PeersContext,
): Promise<{ rows: TurnRow[]; oursItlMs: number[]; peerItlMs: number[] }> {
  const samples: TurnRow[][] = Array.from({ length: ctx.workload.numTurns }, () => []);
  const oursItlMs: number[] = [];
  const peerItlMs: number[] = [];
  for (let rep = 0; rep < ctx.workload.numConversationRuns; rep++) {
    let history: ChatTurn[] = [];
    for (let turn = 1; turn <= ctx.workload.numTurns; turn++) {
      const messages = [...history, userMessage(ctx.folder.tokenizer, ctx.workload, 10 + rep, turn)];
      const run: OursRun = await askOurs(
        ctx.runtime,
        ctx.modelId,
        messages,
        ctx.workload.numOutputTokens,
        `peers-multi-turn-${rep}`,
      );
      const peerRun = await peerGenerate(ctx, messages);
      const floorMs = await ctx.floor.prefillMs(idsOf(ctx, messages), null);
      oursItlMs.push(...run.timeline.itlMs);
      peerItlMs.push(...(peerRun?.itlMs ?? []));
      samples[turn - 1]!.push({
        turn,
        numPromptTokens: run.timeline.numPromptTokens,
        numCachedTokens: run.timeline.numCachedTokens,
        oursTtftMs: run.timeline.ttftMs ?? Number.NaN,
        peerTtftMs: peerRun?.ttftMs ?? null,
        floorFullPrefillMs: floorMs,
      });
      history = [...messages, { role: 'assistant', content: run.text }];
      ctx.onProgress(
        `multi turn ${turn}/${ctx.workload.numTurns} (conversation ${rep + 1}/${ctx.workload.numConversationRuns})`,
      );
    }
  }
  return { rows: samples.map(medianRow), oursItlMs, peerItlMs };
}

/** Per-field nearest-rank medians of one turn's rows. */
function medianRow(rows: TurnRow[]): TurnRow {
  const med = (values: number[]) =>
    nearestRankSorted(
      [...values].sort((a, b) => a - b),
      0.5,
    ) ?? Number.NaN;
  const peer = rows.map((r) => r.peerTtftMs).filter((ms): ms is number => ms !== null);
  return {
    turn: rows[0]!.turn,
    numPromptTokens: med(rows.map((r) => r.numPromptTokens)),
    numCachedTokens: med(rows.map((r) => r.numCachedTokens)),
    oursTtftMs: med(rows.map((r) => r.oursTtftMs)),
    peerTtftMs: peer.length === 0 ? null : med(peer),
    floorFullPrefillMs: med(rows.map((r) => r.floorFullPrefillMs)),
  };
}

/** Conversations at once through First Frame, then the very same prompts one at a time through the peer. */
export async function concurrent(ctx: PeersContext): Promise<{
  oursTokensPerS: number;
  oursTtftMs: number[];
  peerTokensPerS: number | null;
  numRequests: number;
}> {
  const message = (c: number, turn: number) => userMessage(ctx.folder.tokenizer, ctx.workload, c + 1, turn);
  const { runs, prompts } = await oursConcurrent(ctx.runtime, ctx.modelId, ctx.workload, message);
  ctx.onProgress('concurrent: First Frame done');
  let peerTokensPerS: number | null = null;
  if (ctx.peer) {
    let numTokens = 0;
    let wallMs = 0;
    for (const messages of prompts) {
      const run = (await peerGenerate(ctx, messages))!;
      numTokens += run.numTokens;
      wallMs += run.wallMs;
    }
    peerTokensPerS = (numTokens * 1000) / wallMs;
  }
  ctx.onProgress('concurrent: peer done');
  return {
    oursTokensPerS: oursTokensPerS(runs),
    oursTtftMs: runs.map((r) => r.timeline.ttftMs ?? Number.NaN),
    peerTokensPerS,
    numRequests: runs.length,
  };
}

function idsOf(ctx: PeersContext, messages: ChatTurn[]): number[] {
  return ctx.folder.tokenizer.encodePrompt(ctx.folder.tokenizer.renderChat(messages));
}

function peerGenerate(ctx: PeersContext, messages: ChatTurn[]): Promise<PeerRun | null> {
  return ctx.peer
    ? ctx.peer.generate(ctx.folder.tokenizer.renderChat(messages).text, ctx.workload.numOutputTokens)
    : Promise.resolve(null);
}

function add(samples: Samples, ttftMs: number, itlMs: readonly number[]): void {
  samples.ttftMs.push(ttftMs);
  samples.itlMs.push(...itlMs);
}
