import type { Timeline } from '../../telemetry/timeline/schema';
import type { TimelineSource } from '../../telemetry/trace/stream-out';

/** Exports this large or larger say how far they are on stderr; smaller ones finish too fast to need it. */
export const PROGRESS_MIN_ROWS = 10_000;

/**
 * `source`, passing each timeline through unchanged and telling `report` the count every tenth
 * of `numTotal` (nothing for exports under PROGRESS_MIN_ROWS).
 */
export async function* withProgress(
  source: TimelineSource,
  numTotal: number,
  report: (numDone: number, numTotal: number) => void,
): AsyncGenerator<Timeline> {
  const step = numTotal >= PROGRESS_MIN_ROWS ? Math.ceil(numTotal / 10) : Infinity;
  let numDone = 0;
  for await (const timeline of source) {
    yield timeline;
    numDone++;
    if (numDone % step === 0) report(numDone, numTotal);
  }
}
