import { ManualClock } from '../../../../src-main/telemetry/clock';
import type { Timeline } from '../../../../src-main/telemetry/timeline/schema';
import { canonicalTimeline } from '../../../../src-main/telemetry/timeline/canonical';
import { TimelineRecorder } from '../../../../src-main/telemetry/timeline/recorder';
import { RecordedFinishSchema } from '../../../../src-main/telemetry/timeline/schema';

/**
 * A run's worth of timelines walked through the real recorder on a hand-moved clock (unit-test
 * fixture): one request per finish reason a timeline records (`interrupted` is only ever read back
 * from a checkpoint), two preempted ones (before and after the first
 * token), some with a client TTFT, stamps at fractional ms like real ones.
 */
export function everyFinishTimelines(runId: string | null = null): Timeline[] {
  let arrivedAt = 1_700_000_000_000.125;
  const next = (id: string) => {
    arrivedAt += 37.3;
    return new TimelineRecorder(
      new ManualClock(arrivedAt),
      { requestId: id, runId, modelId: 'tiny', modelRevision: 'rev', slotId: 'slot-1', numPromptTokens: 40 },
      arrivedAt,
    );
  };
  const out: Timeline[] = [];
  for (const reason of RecordedFinishSchema.options) {
    const r = next(`finish-${reason}`);
    let at = arrivedAt + 0.21;
    r.enter('route', at);
    if (reason === 'rejected') {
      out.push(r.finish('rejected', at + 0.4, 'queue is full'));
      continue;
    }
    for (const state of ['queue', 'activation', 'contextLookup', 'prefill', 'emit'] as const)
      r.enter(state, (at += 1.37));
    const numTokens = reason === 'cancelled' ? 2 : 5;
    for (let k = 0; k < numTokens; k++) r.tokensFlushed(1, (at += 4.9 + k * 0.3));
    const t = r.finish(reason, at + 0.05, reason === 'error' ? 'step failed: worker exited' : null);
    out.push(reason === 'stop' ? canonicalTimeline({ ...t, clientTtftMs: t.ttftMs! + 3.25 }) : t);
  }
  out.push(preempted(next('preempted-early'), arrivedAt, true));
  out.push(preempted(next('preempted-late'), arrivedAt, false));
  return out;
}

/** Preempted once: before its first token (requeue and lost prefill) or after it (decode recomputed). */
function preempted(r: TimelineRecorder, arrivedAt: number, isEarly: boolean): Timeline {
  let at = arrivedAt;
  for (const state of ['route', 'queue', 'activation', 'contextLookup', 'prefill'] as const)
    r.enter(state, (at += 1.1));
  if (isEarly) {
    r.preempt((at += 6.5));
    for (const state of ['activation', 'contextLookup', 'prefill'] as const) r.enter(state, (at += 2.2));
  }
  r.enter('emit', (at += 7.7));
  r.tokensFlushed(1, (at += 0.4));
  if (!isEarly) {
    // As the engine does: the sequence waits, is recomputed, and decodes on.
    r.preempt((at += 3));
    for (const state of ['activation', 'contextLookup', 'prefill', 'decode'] as const)
      r.enter(state, (at += 1.9));
  }
  for (let k = 0; k < 3; k++) r.tokensFlushed(1, (at += 5));
  const t = r.finish('length', at);
  return canonicalTimeline({ ...t, clientTtftMs: t.ttftMs! + 1.5 });
}
