import type { KvGrant } from './kv-grant';
import type { PrefillPlan } from './prefill-order';
import type { Sequence } from './sequence';

/**
 * Scheduler settings, read live: seats per slot, the prefill chunk (null = whole prompt), the K/V
 * budget. Paging is not among them: its RAM tier is null when paging is off.
 */
export interface SchedulerOptions {
  readonly maxSeats: number;
  readonly prefillChunkTokens: number | null;
  readonly kvBudgetBytes: number;
}

/** What a sequence left behind when it finished: K/V in its worker, and the pages it held then. */
export interface LeftSeat {
  /** It had started prefilling in its slot's worker, which still holds its K/V. */
  hasKvInWorker: boolean;
  /** Hashes of the pages it held, page i at index i. */
  pageHashes: string[];
}

/** A sequence the scheduler ended while planning a step, and why (the engine tells its sink). */
export interface EndedInPlan extends LeftSeat {
  seq: Sequence;
  reason: 'length' | 'rejected';
  message: string;
}

/** What one step of a slot will do. */
export interface StepPlan {
  admitted: Sequence[];
  prefill: PrefillPlan | null;
  decodeRows: Sequence[];
  /** Decode steps the job runs back to back (a burst: only with no prefill, admission or queue); 1 otherwise. */
  numDecodeSteps: number;
  /** Sequences sent back to the queue to free K/V (RUNNING → WAITING), of this slot or of idle others. */
  preempted: Sequence[];
  /** Sequences finished while planning: one that cannot grow even alone, a head that can never fit. */
  ended: EndedInPlan[];
  /** The size the slot's K/V buffer takes for this step (bound path; null: no buffer, or no seat taken). */
  kvGrant: KvGrant | null;
}
