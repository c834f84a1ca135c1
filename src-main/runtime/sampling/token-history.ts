import { SAMPLING_LIMITS } from './limits';

/** What the penalties look back on: the prompt's last tokens and the whole answer so far. */
export interface PenaltyHistory {
  /** The prompt's last SAMPLING_LIMITS.repeatPenalty.numLastTokens ids (fewer for a short prompt). */
  promptTailIds: number[];
  /** Every id the answer holds so far (more than the prompt after a preemption's recompute). */
  outputIds: number[];
}

const WINDOW = SAMPLING_LIMITS.repeatPenalty.numLastTokens;

/**
 * A sequence's token history for the penalties: the repeat window (last WINDOW ids of prompt +
 * answer, as llama.cpp's repeat_last_n) and how often each id occurs in the answer (OpenAI's
 * presence and frequency penalties count the answer only).
 */
export class TokenHistory {
  /** The repeat window's ids, oldest first, at most WINDOW. */
  private readonly recent: number[];
  private readonly recentCounts = new Map<number, number>();
  /** Occurrences of each id in the answer so far. */
  readonly outputCounts = new Map<number, number>();

  constructor(history: PenaltyHistory) {
    this.recent = [...history.promptTailIds, ...history.outputIds].slice(-WINDOW);
    for (const id of this.recent) bump(this.recentCounts, id, 1);
    for (const id of history.outputIds) bump(this.outputCounts, id, 1);
  }

  /** The distinct ids in the repeat window. */
  recentIds(): IterableIterator<number> {
    return this.recentCounts.keys();
  }

  /** Notes a token the sequence just produced. */
  push(id: number): void {
    this.recent.push(id);
    bump(this.recentCounts, id, 1);
    if (this.recent.length > WINDOW) bump(this.recentCounts, this.recent.shift()!, -1);
    bump(this.outputCounts, id, 1);
  }
}

function bump(counts: Map<number, number>, id: number, by: number): void {
  const count = (counts.get(id) ?? 0) + by;
  if (count > 0) counts.set(id, count);
  else counts.delete(id);
}
