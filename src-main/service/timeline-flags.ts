import type { Log } from '../telemetry/log/log';
import type { Timeline } from '../telemetry/timeline/schema';
import { unattributedProblem } from '../telemetry/timeline/check';

/** Shortest spacing of two log lines about flagged timelines (ms): a burst is one line with a count. */
const FLAG_LOG_SPACING_MS = 10_000;

/**
 * Tells the log about timelines whose unattributed time is too large to trust their parts
 * (see unattributedProblem): the first at once, later ones at most every 10 s with how many
 * were flagged since, so a systematic gap is visible without flooding the log.
 */
export function timelineFlagger(log: Log, nowMs: () => number = Date.now): (t: Timeline) => void {
  let lastLoggedAtMs = -Infinity;
  let numSinceLog = 0;
  return (t) => {
    const problem = unattributedProblem(t);
    if (problem === null) return;
    numSinceLog += 1;
    if (nowMs() - lastLoggedAtMs < FLAG_LOG_SPACING_MS) return;
    const more = numSinceLog > 1 ? ` (${numSinceLog - 1} more flagged since the last line)` : '';
    log.warn('timeline', `${t.requestId}: ${problem}${more}`);
    lastLoggedAtMs = nowMs();
    numSinceLog = 0;
  };
}
