import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Runtime } from '../../src-main/runtime/runtime';
import type { RuntimeOptions } from '../../src-main/runtime/runtime-options';
import type { TextTokenizer } from '../../src-main/runtime/tokenize/tokenizer';
import { openSqliteHistory } from '../../src-main/history/history';
import { nearestRankOf } from '../../src-main/telemetry/report/nearest-rank';
import { median } from './decode';
import { promptOfTokens } from './prompts';
import { request } from './cases';
import type { TargetCheck } from './summary';

/** Output tokens per measured request: its decode steps run while its prompt's pages are written. */
const OUTPUT_TOKENS = 256;

/** A decode step's inter-token latency with the disk tier writing pages, beside the same without it. */
export interface SpillItlResult {
  promptTokens: number;
  numRuns: number;
  /** Median ITL (ms) over every decode step of the runs, disk tier on (pages spilled mid-decode). */
  spillingItlMs: number;
  /** The same with no disk tier (nothing written). */
  plainItlMs: number;
  /** 95th percentile (nearest rank) of the same gaps: a write that stalls a step shows here first. */
  spillingItlP95Ms: number;
  plainItlP95Ms: number;
  /** Pages the disk tier wrote during the spilling runs (each run's prompt pages are new). */
  numPagesWritten: number;
  ratio: number;
}

/**
 * Fresh `promptTokens` prompts (no page hit) answered with OUTPUT_TOKENS tokens, alternately by a
 * runtime whose disk tier writes every completed page and by one with no disk tier: the prompt's
 * pages are confirmed by the first decode reply and written ~50 ms later, so the disk writes land
 * inside the decode. Runs alternate so load drift hits both sides alike.
 */
export async function measureSpillItl(
  common: Partial<RuntimeOptions> & Pick<RuntimeOptions, 'bundledModelsDir'>,
  modelId: string,
  tokenizer: TextTokenizer,
  promptTokens: number,
  numRuns: number,
  onProgress: (label: string) => void,
): Promise<SpillItlResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-bench-spill-'));
  const history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
  const dir = path.join(dataDir, 'context-pages');
  const spilling = await Runtime.create({
    ...common,
    isPaging: true,
    diskPages: { dir, rows: history.contextPages! },
  });
  const plain = await Runtime.create({ ...common, isPaging: true, diskPages: null });
  try {
    const sides = [spilling, plain];
    for (const runtime of sides) await request(runtime, modelId, promptOfTokens(tokenizer, 64, 7), 4);
    const itl = { spilling: [] as number[], plain: [] as number[] };
    const writtenBefore = spilling.disk!.counters.numWritten;
    for (let i = 0; i < numRuns; i++) {
      const text = (seed: number) => promptOfTokens(tokenizer, promptTokens, seed);
      itl.spilling.push(...(await request(spilling, modelId, text(7000 + i), OUTPUT_TOKENS)).timeline.itlMs);
      itl.plain.push(...(await request(plain, modelId, text(8000 + i), OUTPUT_TOKENS)).timeline.itlMs);
      onProgress(`spill ITL ${i + 1}/${numRuns}`);
    }
    await spilling.disk!.settle();
    const spillingItlMs = median(itl.spilling);
    const plainItlMs = median(itl.plain);
    return {
      promptTokens,
      numRuns,
      spillingItlMs,
      plainItlMs,
      spillingItlP95Ms: nearestRankOf(itl.spilling, 0.95) ?? 0,
      plainItlP95Ms: nearestRankOf(itl.plain, 0.95) ?? 0,
      numPagesWritten: spilling.disk!.counters.numWritten - writtenBefore,
      ratio: spillingItlMs / plainItlMs,
    };
  } finally {
    await spilling.close();
    await plain.close();
    history.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The spill-cost target (issue: a decode step's ITL while pages spill ≤ 1.05× without). */
export function spillItlCheck(r: SpillItlResult): TargetCheck {
  return {
    name: 'spill_itl_over_plain_itl',
    measured: r.ratio,
    target: '≤ 1.05',
    isMet: r.ratio <= 1.05,
    how: `median ITL over ${r.numRuns} runs of ${OUTPUT_TOKENS} tokens after fresh ${r.promptTokens}-token prompts, ${r.numPagesWritten} pages written during the spilling runs: ${r.spillingItlMs.toFixed(2)} / ${r.plainItlMs.toFixed(2)} ms (p95 ${r.spillingItlP95Ms.toFixed(2)} / ${r.plainItlP95Ms.toFixed(2)})`,
  };
}
