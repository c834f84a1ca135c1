import type { Clock } from '../telemetry/clock';
import type { CatalogueEntry } from '../runtime/model/catalogue';
import type { SlotEvent } from '../runtime/slots/slot-types';
import type { Slot } from '../runtime/slots/slot';
import { weightsOriginOf } from '../runtime/model/gguf/gguf-folder';
import { isDiscoveredSource, MODEL_SOURCE_LABELS } from '../runtime/model/model-sources';
import { loadMsOf } from '../runtime/slots/slot';
import type { ModelSource } from '../runtime/model/model-sources';
import { variantLabelOf } from '../runtime/model/variant-names';
import type { PageSummary } from '../runtime/runtime-summary';
import type { ModelEntry, PageStats, SlotEvent as SlotEventPayload, SlotSnapshot } from './contract/schemas';

/**
 * "name · variant", the variant named by its weights (variantLabelOf: the bundled `model.onnx`
 * holding fp16 is "fp16"); a whole broken folder shows its name alone; a model another program
 * keeps ends with that program's name: "llama3.2:3b · Ollama".
 */
export function displayNameOf(
  name: string,
  variant: string | null,
  weightDtype: string | null,
  source: ModelSource,
): string {
  const label = variantLabelOf(variant, weightDtype);
  const parts = [name, label, isDiscoveredSource(source) ? MODEL_SOURCE_LABELS[source] : null];
  return parts.filter((p) => p !== null).join(' · ');
}

/** A catalogue entry as the model picker shows it. */
export function toModelEntry(entry: CatalogueEntry): ModelEntry {
  const base = {
    modelId: entry.modelId,
    displayName: displayNameOf(
      entry.name,
      entry.variant,
      entry.status === 'ok' ? entry.model.graph.weightDtype : null,
      entry.source,
    ),
    name: entry.name,
    variant: entry.variant,
    isDefaultVariant: entry.isDefaultVariant,
    path: entry.path,
    isBundled: entry.isBundled,
    source: entry.source,
  };
  if (entry.status !== 'ok')
    return {
      ...base,
      status: entry.status,
      modelRevision: null,
      tokenizerRevision: null,
      layoutRevision: null,
      numParams: null,
      numLayers: null,
      weightBytes: null,
      weightDtype: null,
      kvDtype: null,
      format: null,
      defaultSampling: entry.facts?.defaultSampling ?? null,
      error: entry.error,
    };
  const { folder, revisions, graph } = entry.model;
  return {
    ...base,
    modelRevision: revisions.modelRevision,
    tokenizerRevision: revisions.tokenizerRevision,
    layoutRevision: null,
    numParams: graph.numParams,
    numLayers: folder.shape.numLayers,
    weightBytes: graph.weightBytes,
    weightDtype: graph.weightDtype,
    kvDtype: graph.io.kvDtype,
    format: folder.format,
    defaultSampling: folder.defaultSampling ?? entry.facts?.defaultSampling ?? null,
    status: entry.status,
    error: null,
  };
}

/**
 * A slot as its card shows it, with the sequences seated on it now (the scheduler's count);
 * monotonic instants become wall-clock times for the UI.
 */
export function toSlotSnapshot(slot: Slot, numActiveSequences: number, clock: Clock): SlotSnapshot {
  const toWall = (at: number | null) => (at === null ? null : clock.wallNow() + (at - clock.now()));
  const identity = slot.pageIdentity;
  return {
    slotId: slot.slotId,
    modelId: slot.model.modelId,
    displayName: displayNameOf(
      slot.model.name,
      slot.model.variant,
      slot.model.graph.weightDtype,
      slot.model.source,
    ),
    variant: slot.model.variant,
    status: slot.status,
    failureReason: slot.failureReason,
    modelRevision: slot.model.revisions.modelRevision,
    tokenizerRevision: slot.model.revisions.tokenizerRevision,
    layoutRevision: identity?.layoutRevision ?? '',
    slotRevision: slot.slotRevision,
    precision: slot.model.graph.weightDtype,
    weightsOrigin: weightsOriginOf(slot.model.folder),
    executionProvider: slot.provider?.used ?? slot.requestedProvider,
    requestedProvider: slot.provider?.requested ?? slot.requestedProvider,
    providerUnavailableReason: slot.provider?.unavailableReason ?? null,
    graphCache: slot.graphCache?.status ?? null,
    graphCacheReason: slot.graphCache?.reason ?? null,
    decodeNodesPerStep: slot.stepNodes?.count ?? null,
    decodeNodesReason: slot.stepNodes?.reason ?? null,
    kvPath:
      slot.runPath === null
        ? null
        : slot.runPath.path === 'bound'
          ? 'K/V written in place'
          : `through onnxruntime-node: ${slot.runPath.reason}`,
    kvBufferBytes: slot.kvBufferBytes,
    fusion: slot.fusion,
    fusionMs: slot.loadTimings?.fuseMs ?? null,
    loadMs: loadMsOf(slot),
    numThreads: slot.sessionThreads?.numThreads ?? null,
    canSpinThreads: slot.sessionThreads?.canSpinThreads ?? null,
    hostBytes: slot.host?.hostBytes ?? 0,
    isPinned: slot.host?.isPinned ?? false,
    pinnedReason: slot.host?.pinnedReason ?? null,
    lockedBytes: slot.host?.lockedBytes ?? 0,
    residentPct: slot.host?.residentPct ?? null,
    keepAlive: slot.keepAlive,
    expiresAtWallMs: toWall(slot.expiresAt),
    numHits: slot.numHits,
    numActiveSequences,
    lastUsedWallMs: slot.lastUsedWallMs,
    conversion: slot.conversion,
  };
}

/** A runtime slot event without its monotonic stamp. */
export function toSlotEventPayload(event: SlotEvent): SlotEventPayload {
  const { at: _at, ...rest } = event;
  return rest;
}

/** Page cache totals plus per-conversation coverage (from the live window). */
export function toPageStats(summary: PageSummary, conversations: PageStats['conversations']): PageStats {
  return {
    pageSize: summary.pageSize,
    numPages: summary.numPages,
    numHeldPages: summary.numHeldPages,
    bytes: summary.bytes,
    budgetBytes: summary.budgetBytes,
    numLookups: summary.numLookups,
    numHitTokens: summary.numHitTokens,
    numLookupTokens: summary.numLookupTokens,
    hitRate: summary.numLookupTokens > 0 ? summary.numHitTokens / summary.numLookupTokens : null,
    numEvicted: summary.numEvicted,
    disk: summary.disk,
    conversations,
  };
}
