import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PRIVATE_FILE_MODE, makePrivateFolder } from '../../../private-files';
import type { RunnerOptions } from '../session-options';
import { boundSessionConfigOf } from './bound-session-config';

/** Largest |difference| between a warm-up's logits and the reference's, relative to the largest logit. */
const MAX_RELATIVE_DIFF = 1e-4;
/** How many of the reference's largest logits a verdict keeps (with their token ids). */
const NUM_KEPT_LOGITS = 64;

/**
 * The warm-up logits onnxruntime-node gave for a graph, as a verdict keeps them: the vocabulary
 * size, the largest |logit| (the scale differences are measured against) and the largest logits
 * with their token ids, best first. Enough to tell the same next-token scores without the whole row.
 */
export const ReferenceLogitsSchema = z.object({
  vocabSize: z.number().int().positive(),
  scale: z.number().nonnegative(),
  top: z.array(z.tuple([z.number().int().nonnegative(), z.number()])).min(1),
});
/** See ReferenceLogitsSchema. */
export type ReferenceLogits = z.infer<typeof ReferenceLogitsSchema>;

/**
 * What the first load of a graph found: the bound path matched onnxruntime-node (`bound`, with
 * the reference later loads compare against), or it did not (`ort-node`, with the plain reason).
 */
export const BoundVerdictSchema = z.discriminatedUnion('path', [
  z.object({ path: z.literal('bound'), reference: ReferenceLogitsSchema }),
  z.object({ path: z.literal('ort-node'), reason: z.string() }),
]);
/** See BoundVerdictSchema. */
export type BoundVerdict = z.infer<typeof BoundVerdictSchema>;

/** The reference kept of one warm-up's logits (a single position's row). */
export function referenceOf(logits: Float32Array): ReferenceLogits {
  let scale = 0;
  for (const value of logits) scale = Math.max(scale, Math.abs(value));
  const order = Array.from(logits.keys()).sort((a, b) => logits[b]! - logits[a]!);
  const top = order.slice(0, NUM_KEPT_LOGITS).map((id): [number, number] => [id, logits[id]!]);
  return { vocabSize: logits.length, scale, top };
}

/**
 * Why `logits` differ from the reference, or null when they agree: each kept logit within
 * MAX_RELATIVE_DIFF of the scale, and no other logit above the smallest kept one (so the best
 * tokens, and greedy's pick, are the same).
 */
export function referenceProblem(reference: ReferenceLogits, logits: Float32Array): string | null {
  if (logits.length !== reference.vocabSize)
    return `warm-up gave ${logits.length} logits, not ${reference.vocabSize}`;
  const tolerance = MAX_RELATIVE_DIFF * reference.scale;
  let diff = 0;
  const kept = new Set<number>();
  for (const [id, value] of reference.top) {
    kept.add(id);
    diff = Math.max(diff, Math.abs(logits[id]! - value));
  }
  if (!(Number.isFinite(diff) && diff <= tolerance))
    return `its warm-up logits differ from onnxruntime-node's (largest difference ${diff})`;
  const floor = reference.top[reference.top.length - 1]![1] + tolerance;
  for (let id = 0; id < logits.length; id++)
    if (!kept.has(id) && !(logits[id]! <= floor))
      return `its warm-up scores token ${id} above onnxruntime-node's best ${reference.top.length}`;
  return null;
}

/**
 * The verdict file of a bound session with `options` in `dir`, keyed by the session config both
 * paths derive and `graphKey` (what else names the graph: nothing inside a cached graph's entry,
 * which goes with the graph; the model revision and machine for a model's own file).
 */
export function verdictFileOf(dir: string, options: RunnerOptions, graphKey = ''): string {
  const key = `${graphKey}|${JSON.stringify(boundSessionConfigOf(options))}`;
  return path.join(dir, `bound-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.json`);
}

/** The recorded verdict, or null when there is none (a file that does not read back is removed). */
export function readVerdict(file: string): BoundVerdict | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    return BoundVerdictSchema.parse(JSON.parse(text));
  } catch (error) {
    console.warn(`bound run path: ${file} did not read back and was removed: ${(error as Error).message}`);
    rmSync(file, { force: true });
    return null;
  }
}

/** Records a verdict (owner-only, renamed into place whole). Best effort: a failed write is logged. */
export function writeVerdict(file: string, verdict: BoundVerdict): void {
  const pending = `${file}.${process.pid}.partial`;
  try {
    makePrivateFolder(path.dirname(file)); // a cache folder nothing was saved in yet
    writeFileSync(pending, `${JSON.stringify(verdict)}\n`, { mode: PRIVATE_FILE_MODE });
    renameSync(pending, file);
  } catch (error) {
    rmSync(pending, { force: true });
    console.warn(`bound run path: could not record ${file}: ${(error as Error).message}`);
  }
}
