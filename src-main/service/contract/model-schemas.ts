import { z } from 'zod';
import { DISCOVERED_SOURCES, PLACE_STATES } from '../../runtime/model/model-sources';

/** One place discovery reads (a store of Ollama, LM Studio or the Hugging Face cache) and what it held. */
export const DiscoveryPlaceSchema = z.object({
  source: z.enum(DISCOVERED_SOURCES),
  /** The store in words (`Ollama`). */
  label: z.string(),
  path: z.string(),
  state: z.enum(PLACE_STATES),
  /** Models listed from it (null unless `found`). */
  numModels: z.number().int().nullable(),
  /** Why it could not be read, or null. */
  reason: z.string().nullable(),
});
export type DiscoveryPlace = z.infer<typeof DiscoveryPlaceSchema>;

/**
 * Whether the models other programs keep on this machine are listed (read in place, never
 * written or copied; off until the user turns it on) and what each place held at the last scan.
 */
export const DiscoveryStateSchema = z.object({
  isEnabled: z.boolean(),
  /** Whether the choice is kept across restarts (false with history off). */
  isPersistent: z.boolean(),
  places: z.array(DiscoveryPlaceSchema),
});
export type DiscoveryState = z.infer<typeof DiscoveryStateSchema>;

/**
 * A conversion in progress on a slot (a GGUF file becoming an ONNX graph in the graph cache,
 * once per file): bytes of the file read and converted so far, of its total.
 */
export const ConversionProgressSchema = z.object({
  bytesDone: z.number().int().min(0),
  bytesTotal: z.number().int().min(0),
  /** Wall-clock epoch ms when it began. */
  startedAtWallMs: z.number(),
});
export type ConversionProgress = z.infer<typeof ConversionProgressSchema>;

const byteCount = z.number().int().nonnegative();

/**
 * The GGUF conversion cache: each GGUF file's converted folder (its bytes on disk; in use when a
 * loaded, loading or converting model reads it), and what clearing would free.
 */
export const ConversionCacheSchema = z.object({
  folders: z.array(
    z.object({
      /** The GGUF file it was converted from, or null when its record does not say. */
      sourcePath: z.string().nullable(),
      numBytes: byteCount,
      isInUse: z.boolean(),
    }),
  ),
  numBytes: byteCount,
  numFreeableBytes: byteCount,
});
export type ConversionCache = z.infer<typeof ConversionCacheSchema>;

/** What clearing the conversion cache did: folders removed and bytes freed, folders kept in use, removals that failed. */
export const ClearedConversionsSchema = z.object({
  numRemoved: z.number().int().nonnegative(),
  numFreedBytes: byteCount,
  numKeptInUse: z.number().int().nonnegative(),
  problems: z.array(z.string()),
});
export type ClearedConversions = z.infer<typeof ClearedConversionsSchema>;
