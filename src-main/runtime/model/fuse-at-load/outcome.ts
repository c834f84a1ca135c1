import { z } from 'zod';
import { SETTINGS } from '../../settings/declaration';

/**
 * How the fused graph's greedy ids compared with the original graph's on the check's tokens:
 * positions compared, how many chose the same id, the largest logit difference, and whether
 * every id had to match (float32 weights and K/V) or a share above FUSION_CHECK_LIMITS' did.
 */
export const FusionAgreementSchema = z.object({
  numCompared: z.number().int().nonnegative(),
  numEqual: z.number().int().nonnegative(),
  /** Largest |logit difference| over every compared position; null when a logit was not finite. */
  maxLogitDiff: z.number().nullable(),
  isExact: z.boolean(),
});
/** See FusionAgreementSchema. */
export type FusionAgreement = z.infer<typeof FusionAgreementSchema>;

/**
 * Nodes ONNX Runtime ran for one decode step of the original and of the fused graph, profiled
 * in the check's last step (both as written, before the slot's own output rewrites).
 */
export const FusionStepNodesSchema = z.object({
  original: z.number().int().nonnegative(),
  fused: z.number().int().nonnegative(),
});

/**
 * What load-time fusion did with a slot's graph, for the slot card: fused (nodes per layer and
 * per decode step before/after, the check's agreement), left as exported (the part that did not
 * fuse or the check that failed, and why), already fused by its exporter, or off by setting.
 * `isFromCache`: the fused-graph cache answered, so neither recognition nor the check ran on
 * this load.
 */
export const FusionOutcomeSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('fused'),
    nodesPerLayer: z.number().int().positive(),
    /** Null when the check's profiles could not be read (said in the log). */
    stepNodes: FusionStepNodesSchema.nullable(),
    agreement: FusionAgreementSchema,
    isFromCache: z.boolean(),
  }),
  z.object({
    status: z.literal('as-exported'),
    part: z.string(),
    reason: z.string(),
    agreement: FusionAgreementSchema.nullable(),
    isFromCache: z.boolean(),
  }),
  z.object({ status: z.literal('already-fused'), reason: z.string() }),
  z.object({ status: z.literal('off'), reason: z.string() }),
]);
/** See FusionOutcomeSchema. */
export type FusionOutcome = z.infer<typeof FusionOutcomeSchema>;

/** A fresh decision to run the graph as exported: the part that did not fuse (or `check`), why, and the check's agreement if it ran. */
export function asExported(
  part: string,
  reason: string,
  agreement: FusionAgreement | null = null,
): FusionOutcome {
  return { status: 'as-exported', part, reason, agreement, isFromCache: false };
}

/** Bounds of the check run before a fused graph is used (see FusionAgreement). */
export const FUSION_CHECK_LIMITS = {
  /** Share of equal greedy ids a graph with fp16, bf16 or block-quantized weights (or fp16 K/V) needs. */
  minAgreement: 0.9,
} as const;

/** Which graph a slot runs, in the slot card's words: "fused at load", "as exported — …", "already fused". */
export function describeFusion(outcome: FusionOutcome): string {
  switch (outcome.status) {
    case 'fused':
      return 'fused at load';
    case 'as-exported':
      return outcome.part === 'check'
        ? `as exported — the fused graph failed its check against it: ${outcome.reason}`
        : `as exported — ${outcome.part} did not fuse: ${outcome.reason}`;
    case 'already-fused':
      return 'already fused';
    case 'off':
      return `as exported — ${outcome.reason}`;
  }
}

/**
 * The details behind describeFusion (the card's hover text): the check's agreement, nodes per
 * layer, whether the load cache answered, or the exporter's fused operator.
 */
export function detailFusion(outcome: FusionOutcome): string {
  switch (outcome.status) {
    case 'fused': {
      const { numEqual, numCompared, isExact } = outcome.agreement;
      const checked = `checked against the exported graph: ${numEqual} of ${numCompared} greedy tokens the same${isExact ? ' (float32 weights: all must be)' : ''}`;
      const cached = outcome.isFromCache
        ? '; rewritten and checked on an earlier load, read from the load cache'
        : '';
      return `${outcome.nodesPerLayer} graph nodes per layer; ${checked}${cached}`;
    }
    case 'as-exported':
      return outcome.isFromCache ? 'decided on an earlier load (kept in the load cache)' : '';
    case 'already-fused':
      return outcome.reason;
    case 'off':
      return `Settings → ${SETTINGS.canFuseAtLoad.label}`;
  }
}
