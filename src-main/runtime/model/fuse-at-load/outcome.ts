import { z } from 'zod';

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
 * What load-time fusion did with a slot's graph, for the slot card: fused (nodes per layer, the
 * check's agreement), left as exported (the part that did not fuse or the check that failed, and
 * why), already fused by its exporter, or off by setting. `isFromCache`: the fused-graph cache
 * answered, so neither recognition nor the check ran on this load.
 */
export const FusionOutcomeSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('fused'),
    nodesPerLayer: z.number().int().positive(),
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

/** Bounds of the check run before a fused graph is used (see FusionAgreement). */
export const FUSION_CHECK_LIMITS = {
  /** Share of equal greedy ids a graph with fp16, bf16 or block-quantized weights (or fp16 K/V) needs. */
  minAgreement: 0.9,
} as const;

/** The slot card's words for an outcome: "fused at load: 10 nodes per layer", "runs as exported: …". */
export function describeFusion(outcome: FusionOutcome): string {
  switch (outcome.status) {
    case 'fused':
      return `fused at load: ${outcome.nodesPerLayer} nodes per layer`;
    case 'as-exported':
      return `runs as exported: ${outcome.part} did not fuse: ${outcome.reason}`;
    case 'already-fused':
      return `runs as exported: ${outcome.reason}`;
    case 'off':
      return `runs as exported: ${outcome.reason}`;
  }
}
