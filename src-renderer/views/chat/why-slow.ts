import type {
  Diagnosis,
  DiskReadFact,
  PageMiss,
  SlotLoadCause,
} from '../../../src-main/telemetry/timeline/diagnosis';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { deriveBarParts } from '../../../src-main/telemetry/timeline/derive';
import { formatBytes, formatClock, formatCount, formatMs } from '../../components/format';

/** One reason, in words, with the part of TTFT it explains. */
export interface Reason {
  kind: 'slot-load' | 'queue' | 'disk' | 'preempted' | 'pages';
  text: string;
}

/** Waits shorter than this are not worth a sentence. */
const NOTABLE_MS = 1;

/**
 * Why an answer's first token took as long as it did, in words, from the facts the runtime
 * recorded where they happened (a cold slot's cause, who was ahead in the queue, why the
 * context pages covered no more of the prompt). Empty when there is nothing to explain.
 */
export function whySlow(t: Timeline, conversationId: string | null): Reason[] {
  const d = t.diagnosis;
  if (!d || t.ttftMs === null) return [];
  const reasons: Reason[] = [];
  if (t.parts.slotLoad > 0 && d.slotLoad)
    reasons.push({ kind: 'slot-load', text: slotLoadText(t.parts.slotLoad, d.slotLoad) });
  // Reading remembered context from disk is its own bar part, cut from queue: the wait is the rest.
  const queueMs = deriveBarParts(t.parts, d.diskRead).queue;
  if (isNotableQueue(queueMs, t.ttftMs, d))
    reasons.push({ kind: 'queue', text: queueText(queueMs, d, conversationId) });
  if (d.diskRead) reasons.push({ kind: 'disk', text: diskReadText(d.diskRead) });
  if (t.numPreemptions > 0)
    reasons.push({
      kind: 'preempted',
      text: `Preempted ${times(t.numPreemptions)} to free K/V memory: ${formatMs(t.parts.requeue)} back in the queue and ${formatMs(t.parts.lostPrefill)} of prefill thrown away.`,
    });
  if (d.pageMiss) reasons.push({ kind: 'pages', text: pagesText(t.parts.prefill, d.pageMiss) });
  return reasons;
}

/** A wait behind others is worth a sentence from 1 ms; a wait for the loop's own step only when it mattered. */
function isNotableQueue(queueMs: number, ttftMs: number, d: Diagnosis): boolean {
  if (d.numQueuedBehind > 0) return queueMs >= NOTABLE_MS;
  return queueMs >= Math.max(5, 0.1 * ttftMs);
}

function slotLoadText(ms: number, c: SlotLoadCause): string {
  const at = c.unloadedAtWallMs === null ? '' : ` at ${formatClock(c.unloadedAtWallMs)}`;
  switch (c.kind) {
    case 'first-load':
      return `Loading the model took ${formatMs(ms)}: it had not been loaded since First Frame started.`;
    case 'prefetch':
      return `Waited ${formatMs(ms)} for the model, which was still loading (a prefetch had started it).`;
    case 'request':
      return `Waited ${formatMs(ms)} for the model, which another request had started loading.`;
    case 'ttl':
      return `Loading the model took ${formatMs(ms)}: it was unloaded${at} when its keep-alive${c.keepAliveMs === null ? '' : ` (${formatIdle(c.keepAliveMs)} idle)`} expired.`;
    case 'budget':
      return `Loading the model took ${formatMs(ms)}: it was unloaded${at} to stay within the memory budget${c.reason ? ` (${c.reason})` : ''}.`;
    case 'manual':
      return `Loading the model took ${formatMs(ms)}: it was unloaded by hand${at}.`;
    case 'error':
      return `Loading the model took ${formatMs(ms)}: its previous load had failed${c.reason ? ` (${c.reason})` : ''}.`;
  }
}

function queueText(ms: number, d: Diagnosis, conversationId: string | null): string {
  if (d.numQueuedBehind === 0)
    return `Waited ${formatMs(ms)} for the slot to finish the step it was running.`;
  const numRunning = d.queuedBehind.filter((b) => b.isRunning).length;
  const numAhead = d.queuedBehind.length - numRunning;
  const ids = d.queuedBehind
    .map(
      (b) =>
        `${b.requestId.slice(0, 8)}${b.conversationId !== null && b.conversationId === conversationId ? ' (this chat)' : b.conversationId === null ? ' (API/bench)' : ''}`,
    )
    .join(', ');
  const who = [
    numRunning > 0 ? `${numRunning} answering` : '',
    numAhead > 0 ? `${numAhead} queued ahead` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const more =
    d.numQueuedBehind > d.queuedBehind.length ? ` and ${d.numQueuedBehind - d.queuedBehind.length} more` : '';
  return `Waited ${formatMs(ms)} for a seat behind ${requests(d.numQueuedBehind)} (${who}): ${ids}${more}.`;
}

/** "Read 12.3 MB of remembered context from disk in 40 ms", and a refused page's reason. */
export function diskReadText(r: DiskReadFact): string {
  const read = `Read ${formatBytes(r.numBytes)} of remembered context from disk in ${formatMs(r.readMs)} (${formatCount(r.numPages)} page${r.numPages === 1 ? '' : 's'})`;
  return r.refused === null ? `${read}.` : `${read}; the next page was not used: ${r.refused}.`;
}

/** What the disk tier adds to a miss: why it had no page either. */
function diskWords(p: PageMiss): string {
  switch (p.onDisk) {
    case undefined:
      return '';
    case 'none':
      return ' and none is kept on disk';
    case 'evicted':
      return '; it had been kept on disk but was removed to stay within the disk budget';
    case 'off':
      return '; nothing is kept on disk (its budget is 0, or the disk is full)';
  }
}

function pagesText(prefillMs: number, p: PageMiss): string {
  const reused = `Reused ${formatCount(p.numCachedTokens)} of ${formatCount(p.numPromptTokens)} prompt tokens`;
  const computed = `${formatCount(p.numPromptTokens - p.numCachedTokens)} computed in ${formatMs(prefillMs)}`;
  switch (p.kind) {
    case 'unaligned-tail':
      // A prompt shorter than one page has no full page to cache: say so rather than "every full page".
      return p.numCachedTokens === 0
        ? `${reused}: the prompt is shorter than one ${p.pageSize}-token page, and only full pages are cached (${computed}).`
        : `${reused}: every full ${p.pageSize}-token page was cached; only the unaligned tail (${computed}) was new.`;
    case 'diverged':
      return `${reused}: the prompt differs from the cached one from token ${formatCount(p.divergedAtToken ?? p.numCachedTokens)} on (${computed}).`;
    case 'revision':
      return `${reused}: the same tokens are cached for another ${p.changedRevisions.join(' and ')} revision${p.changedRevisions.includes('slot') ? ' (the model was reloaded since)' : ''}, and pages never cross revisions (${computed}).`;
    case 'evicted':
      return `${reused}: the next pages had been cached but were evicted to free K/V memory${diskWords(p)} (${computed}).`;
    case 'beyond-cache':
      return `${reused}: every cached page matched; the rest (${computed}) had never been cached.`;
    case 'no-prefix':
      return p.onDisk === 'evicted' || p.onDisk === 'off'
        ? `${reused}: nothing in memory starts like this prompt${diskWords(p)} (${computed}).`
        : `${reused}: nothing cached${p.onDisk ? ' in memory or on disk' : ''} starts like this prompt${p.numCachedTokens === 0 ? ' (a first message, or a new system prompt)' : ''} (${computed}).`;
    case 'paging-off':
      return `Context paging is off: all ${formatCount(p.numPromptTokens)} prompt tokens were computed in ${formatMs(prefillMs)}.`;
  }
}

/** A keep-alive for people: 45 s, 5 min, 2 h 30 min. */
function formatIdle(ms: number): string {
  if (ms < 60_000) return formatMs(ms);
  const minutes = Math.round(ms / 60_000);
  return minutes < 60
    ? `${minutes} min`
    : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}

function requests(n: number): string {
  return n === 1 ? '1 request' : `${n} requests`;
}
