import { HISTORY_LIMITS } from '../limits';
import type { HistoryWriter, History } from '../history/history';
import type { Timeline } from '../telemetry/timeline/schema';
import { TraceImportJob } from '../telemetry/trace/import-job';
import type { TraceImportResult } from './contract/methods';
import type { ImportBudget } from './import-budget';
import { IMPORT_WORKLOAD_PREFIX } from './window-reload';
import { runName } from './run-name';

/** A trace to import: its name, its text in chunks of any size, and the bad-line policy. */
export interface TraceUpload {
  fileName: string;
  chunks: Iterable<string> | AsyncIterable<string>;
  /** Import the good lines of a file with bad ones (otherwise nothing is imported). */
  skipBadLines: boolean;
  /** The file's size when known (an upload's Content-Length), counted against the import budget. */
  numBytes?: number | null;
}

/**
 * Imports a trace without blocking the serving thread, under the core's one import budget (it
 * waits for room, or is refused with `queue_full` before a byte is read): the text streams into
 * a worker that parses and checks every line and builds the report; only when the file is
 * acceptable is a run created and are the timelines handed to the history writer, one batch per
 * turn, waiting whenever the writer's queue is near full. Imported means queued for storage: the
 * writer retries while the database is busy and never drops an acknowledged timeline.
 */
export function importTrace(
  history: History,
  budget: ImportBudget,
  upload: TraceUpload,
): Promise<TraceImportResult> {
  return budget.run(upload.numBytes ?? null, () => importNow(history, upload));
}

async function importNow(history: History, upload: TraceUpload): Promise<TraceImportResult> {
  const job = new TraceImportJob();
  try {
    for await (const chunk of upload.chunks) job.write(chunk);
    const summary = await job.end();
    const { report: _report, ...counts } = summary;
    const isRefused = summary.numRejected > 0 && !upload.skipBadLines;
    if (isRefused || summary.numImported === 0)
      return { ...counts, numImported: 0, report: null, runId: null };
    const run = history.runs.create({
      name: runName(`Imported ${upload.fileName}`, null, Date.now()),
      config: { workload: `${IMPORT_WORKLOAD_PREFIX}${upload.fileName}` },
    });
    const numImported = await job.commit(run.runId, (timelines) =>
      enqueueBelowPendingLimit(history.writer, timelines),
    );
    return { ...summary, numImported, runId: history.isPersistent ? run.runId : null };
  } finally {
    job.discard();
  }
}

/** Queues a batch once the writer has room for it, so an import never pushes others' timelines out. */
async function enqueueBelowPendingLimit(writer: HistoryWriter, timelines: Timeline[]): Promise<void> {
  const pendingLimit = HISTORY_LIMITS.maxPending - HISTORY_LIMITS.maxBatch;
  while (writer.stats.numPending + timelines.length > pendingLimit && !writer.stats.isStopped)
    await new Promise((resolve) => setTimeout(resolve, 50));
  for (const timeline of timelines) writer.enqueue(timeline);
}
