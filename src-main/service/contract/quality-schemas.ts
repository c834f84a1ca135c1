import { z } from 'zod';
import { VariantSchema } from './schemas';

/**
 * One variant's measured quality (`npm run bench -- quality`): bits per byte on the held-out
 * Austen text and greedy agreement with the folder's highest-precision variant. Keyed by the
 * variant's modelRevision, so a changed file never shows an old measurement.
 */
export const QualityResultSchema = z.object({
  modelId: z.string(),
  name: z.string(),
  variant: VariantSchema,
  modelRevision: z.string(),
  weightDtype: z.string(),
  /** The variant every other was compared with (the highest-precision one). */
  referenceVariant: VariantSchema,
  bitsPerByte: z.number(),
  /** (bitsPerByte − reference's) / reference's × 100. */
  bitsPerByteVsReferencePct: z.number(),
  /** Share of free-running greedy tokens equal to the reference's at the same position (0..1). */
  agreement: z.number(),
  /** Share of held-out positions where the top-1 token equals the reference's (0..1). */
  top1Agreement: z.number(),
  numPrompts: z.number().int(),
  numTokensPerPrompt: z.number().int(),
  numScoredTokens: z.number().int(),
  numTextBytes: z.number().int(),
  /** sha256 of the held-out text, so results on different texts are never compared. */
  textSha256: z.string(),
  measuredAtWallMs: z.number(),
});
export type QualityResult = z.infer<typeof QualityResultSchema>;
