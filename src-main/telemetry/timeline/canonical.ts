import type { Timeline } from './schema';

/**
 * The same timeline rebuilt as one object literal with every field in schema order. V8 gives
 * each object made by spreading (`{ ...meta, x }`) a hidden class of its own, which makes every
 * loop over many timelines megamorphic (measured: 1,991 classes for 2,000 timelines, and field
 * reads several times slower); built this way, all timelines share one class.
 */
export function canonicalTimeline(t: Timeline): Timeline {
  return {
    requestId: t.requestId,
    source: t.source,
    runId: t.runId,
    conversationId: t.conversationId,
    modelId: t.modelId,
    modelRevision: t.modelRevision,
    slotId: t.slotId,
    isColdSlot: t.isColdSlot,
    wallStartMs: t.wallStartMs,
    arrivedAt: t.arrivedAt,
    firstTokenAt: t.firstTokenAt,
    finishedAt: t.finishedAt,
    transitions: t.transitions,
    parts: t.parts,
    unattributedMs: t.unattributedMs,
    ttftMs: t.ttftMs,
    e2eMs: t.e2eMs,
    itlMs: t.itlMs,
    numPromptTokens: t.numPromptTokens,
    numCachedTokens: t.numCachedTokens,
    numOutputTokens: t.numOutputTokens,
    numPreemptions: t.numPreemptions,
    finishReason: t.finishReason,
    errorMessage: t.errorMessage,
    clientTtftMs: t.clientTtftMs,
    diagnosis: t.diagnosis ?? null,
    clientE2eMs: t.clientE2eMs,
    networkInMs: t.networkInMs,
    remote: t.remote ?? null,
  };
}
