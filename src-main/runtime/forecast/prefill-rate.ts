import { nearestRankOf } from '../../telemetry/report/nearest-rank';
import type { Timeline } from '../../telemetry/timeline/schema';

/** How many recent requests per model the estimate is taken over. */
const WINDOW = 32;

interface Sample {
  numTokens: number;
  prefillMs: number;
  /** TTFT minus prefill, slot load and waiting: what every request pays besides its own tokens. */
  overheadMs: number;
  /** Its wait for a seat (ms) and how many requests held the seats or stood ahead then. */
  queueMs: number;
  numAhead: number;
}

/** What the measured rates say about a model right now. */
export interface PrefillEstimate {
  /** Mean ms per prefilled token over the recent requests (Σ prefill ms / Σ tokens). */
  msPerToken: number;
  /** Median of TTFT minus prefill, slot load and queueing. */
  overheadMs: number;
  /** The most recent measured slot load, or null when none was seen. */
  slotLoadMs: number | null;
  /** Median wait for a seat with nobody ahead: the step in flight it waits out. */
  stepWaitMs: number;
  /** Mean wait per request ahead, from requests that queued behind others; null before one did. */
  msPerAhead: number | null;
  numSamples: number;
}

/**
 * The measured prefill rate per model, learnt from finished timelines (the real forwards of
 * this machine, never a constant): the send forecast's "est. TTFT" is overhead + new tokens ×
 * ms per token (+ the last slot load when the slot is cold).
 */
export class PrefillRate {
  private readonly samples = new Map<string, Sample[]>();
  private readonly slotLoads = new Map<string, number>();
  /** Recent reads of remembered context from disk, any model: this machine's disk. */
  private readonly diskReads: { numBytes: number; readMs: number }[] = [];

  /** Learns from one finished timeline (requests without a first token teach nothing). */
  observe(t: Timeline): void {
    if (t.ttftMs === null || t.source !== 'runtime') return;
    if (t.parts.slotLoad > 0) this.slotLoads.set(t.modelId, t.parts.slotLoad);
    const diskRead = t.diagnosis?.diskRead;
    if (diskRead && diskRead.numBytes > 0 && diskRead.readMs > 0) {
      this.diskReads.push({ numBytes: diskRead.numBytes, readMs: diskRead.readMs });
      if (this.diskReads.length > WINDOW) this.diskReads.shift();
    }
    const numTokens = t.numPromptTokens - t.numCachedTokens;
    if (numTokens < 1 || t.parts.prefill <= 0 || t.numPreemptions > 0) return;
    const waitMs = t.parts.slotLoad + t.parts.queue + t.parts.requeue + t.parts.lostPrefill;
    const list = this.samples.get(t.modelId) ?? [];
    list.push({
      numTokens,
      prefillMs: t.parts.prefill,
      overheadMs: Math.max(0, t.ttftMs - t.parts.prefill - waitMs),
      // A disk read sits inside queue: it is forecast apart, from its bytes.
      queueMs: t.parts.queue - (diskRead?.readMs ?? 0),
      numAhead: t.diagnosis?.numQueuedBehind ?? 0,
    });
    if (list.length > WINDOW) list.shift();
    this.samples.set(t.modelId, list);
  }

  /** Ms per byte read back from disk (Σ ms / Σ bytes of recent reads); null before one was read. */
  diskReadMsPerByte(): number | null {
    let numBytes = 0;
    let readMs = 0;
    for (const read of this.diskReads) {
      numBytes += read.numBytes;
      readMs += read.readMs;
    }
    return numBytes > 0 ? readMs / numBytes : null;
  }

  /** The estimate for a model, or null before its first measured prefill. */
  estimate(modelId: string): PrefillEstimate | null {
    const list = this.samples.get(modelId);
    if (!list || list.length === 0) return null;
    let numTokens = 0;
    let prefillMs = 0;
    for (const s of list) {
      numTokens += s.numTokens;
      prefillMs += s.prefillMs;
    }

    return {
      msPerToken: prefillMs / numTokens,
      overheadMs: nearestRankOf(
        list.map((s) => s.overheadMs),
        0.5,
      )!,
      slotLoadMs: this.slotLoads.get(modelId) ?? null,
      ...queueWaits(list),
      numSamples: list.length,
    };
  }
}

/** The waits a forecast can know from the samples: the step in flight, and per request ahead. */
function queueWaits(list: readonly Sample[]): Pick<PrefillEstimate, 'stepWaitMs' | 'msPerAhead'> {
  const alone = list.filter((s) => s.numAhead === 0).map((s) => s.queueMs);
  const behind = list.filter((s) => s.numAhead > 0);
  const numAhead = behind.reduce((sum, s) => sum + s.numAhead, 0);
  return {
    stepWaitMs: alone.length > 0 ? nearestRankOf(alone, 0.5)! : 0,
    msPerAhead: numAhead > 0 ? behind.reduce((sum, s) => sum + s.queueMs, 0) / numAhead : null,
  };
}
