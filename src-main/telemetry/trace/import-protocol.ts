import type { LatencyReport } from '../report/types';
import type { Timeline } from '../timeline/schema';
import type { RejectedLine } from './parse-line';

/**
 * Messages to the trace import worker: text chunks, their end, then either `commit` (send the
 * timelines back in batches, each acknowledged with `next`, under this run) or `discard`.
 */
export type ToImportWorker =
  | { kind: 'chunk'; text: string }
  | { kind: 'end' }
  | { kind: 'commit'; runId: string | null }
  | { kind: 'next' }
  | { kind: 'discard' };

/** What the whole file came to, before anything is stored. */
export interface ImportSummary {
  numLines: number;
  numImported: number;
  rejected: RejectedLine[];
  numRejected: number;
  /** The report over every imported timeline; null when none was imported. */
  report: LatencyReport | null;
}

/** Messages from the worker: the summary after `end`, batches after `commit`, or a failure. */
export type FromImportWorker =
  | ({ kind: 'summary' } & ImportSummary)
  | { kind: 'batch'; timelines: Timeline[] }
  | { kind: 'done' }
  | { kind: 'failed'; message: string };
