import { ManualClock } from '../../../../src-main/telemetry/clock';
import type { FinishReason, LifeState, Timeline } from '../../../../src-main/telemetry/timeline/schema';
import { canonicalTimeline } from '../../../../src-main/telemetry/timeline/canonical';
import { TimelineRecorder } from '../../../../src-main/telemetry/timeline/recorder';

/** The parts a fixture can set directly (preemption parts need a requeue; see the recorder tests). */
type SimplePart =
  'inbox' | 'route' | 'slotLoad' | 'queue' | 'activation' | 'contextLookup' | 'prefill' | 'emit';

/** A request described by its parts and gaps (ms); everything else has a plain default. */
export interface TimelineSpec {
  id?: string;
  arrivedAt?: number;
  parts?: Partial<Record<SimplePart, number>>;
  gapsMs?: number[];
  finish?: FinishReason;
  modelId?: string;
  numPromptTokens?: number;
  numCachedTokens?: number;
  isColdSlot?: boolean;
  clientTtftMs?: number | null;
  clientE2eMs?: number | null;
  networkInMs?: number | null;
  hasFirstToken?: boolean;
}

const AFTER_INBOX: SimplePart[] = [
  'route',
  'slotLoad',
  'queue',
  'activation',
  'contextLookup',
  'prefill',
  'emit',
];
let counter = 0;

/** A checked timeline walked through the real recorder on a hand-moved clock. */
export function timeline(spec: TimelineSpec = {}): Timeline {
  const arrivedAt = spec.arrivedAt ?? 1_000;
  const parts = spec.parts ?? {};
  const recorder = new TimelineRecorder(
    new ManualClock(arrivedAt),
    {
      requestId: spec.id ?? `req-${++counter}`,
      modelId: spec.modelId ?? 'model-a',
      modelRevision: 'rev-1',
      isColdSlot: spec.isColdSlot ?? false,
      numPromptTokens: spec.numPromptTokens ?? 100,
      numCachedTokens: spec.numCachedTokens ?? 0,
    },
    arrivedAt,
  );
  let at = arrivedAt + (parts.inbox ?? 0);
  for (const state of AFTER_INBOX) {
    recorder.enter(state as LifeState, at);
    at += parts[state] ?? 0;
  }
  if (spec.hasFirstToken === false) return recorder.finish(spec.finish ?? 'rejected', at);
  recorder.tokensFlushed(1, at);
  for (const gap of spec.gapsMs ?? []) {
    at += gap;
    recorder.tokensFlushed(1, at);
  }
  const t = recorder.finish(spec.finish ?? 'stop', at);
  return canonicalTimeline({
    ...t,
    clientTtftMs: spec.clientTtftMs ?? null,
    clientE2eMs: spec.clientE2eMs ?? null,
    networkInMs: spec.networkInMs ?? null,
  });
}

/** Walks an object tree and lists the paths of numbers that are NaN or infinite. */
export function nonFiniteNumbers(value: unknown, path = '$'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nonFiniteNumbers(v, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => nonFiniteNumbers(v, `${path}.${k}`));
  return [];
}
