import { z } from 'zod';
import { SLOT_CAUSES } from '../residency/schema';

/**
 * Why the context pages did not cover more of the prompt, as found at the lookup itself:
 * - `paging-off`: context paging is disabled;
 * - `no-prefix`: no cached page starts like this prompt (a first message, or a new system prompt);
 * - `beyond-cache`: every cached page along this prompt matched, and the rest was never cached
 *   (it is new: the end of the last answer and the new message);
 * - `diverged`: a cached prompt shared the start, and this one differs from token `divergedAtToken` on;
 * - `revision`: the same tokens are cached under other revisions (`changedRevisions`: a rebuilt
 *   slot, new weights or tokenizer), which never match;
 * - `evicted`: the pages for this prefix were cached and have since been evicted;
 * - `unaligned-tail`: every full page was reused; only the tokens that do not fill a page (and
 *   the last token, which makes the logits) were computed.
 */
export const PAGE_MISS_KINDS = [
  'paging-off',
  'no-prefix',
  'beyond-cache',
  'diverged',
  'revision',
  'evicted',
  'unaligned-tail',
] as const;
export type PageMissKind = (typeof PAGE_MISS_KINDS)[number];

/** The revisions a page key holds (docs/design.md). */
export const REVISION_NAMES = ['model', 'tokenizer', 'layout', 'slot'] as const;

/**
 * Why the disk tier had no page either, where the process keeps pages on disk: `none` (no page
 * on disk continues the prompt: it was never written), `evicted` (it was, and was removed to
 * stay within the disk budget), `off` (nothing is kept on disk: budget 0, or the disk is full).
 */
export const DISK_MISS_KINDS = ['none', 'evicted', 'off'] as const;

/** The page lookup of a request's (last) admission: what was reused and why not more. */
export const PageMissSchema = z.object({
  kind: z.enum(PAGE_MISS_KINDS),
  numCachedTokens: z.number().int().min(0),
  numPromptTokens: z.number().int().min(0),
  pageSize: z.number().int().min(1),
  divergedAtToken: z.number().int().min(0).nullable(),
  changedRevisions: z.array(z.enum(REVISION_NAMES)),
  /** Set only where pages are kept on disk and the disk had none to add (DISK_MISS_KINDS). */
  onDisk: z.enum(DISK_MISS_KINDS).optional(),
});
export type PageMiss = z.infer<typeof PageMissSchema>;

/**
 * Why the request found its model slot cold: never loaded since start (`first-load`), or the
 * cause of the slot event that unloaded it (SLOT_CAUSES: its keep-alive `ttl`, making room for
 * another model `budget`, the user `manual`, a failure `error`, …). `unloadedAtWallMs` says when.
 */
export const SlotLoadCauseSchema = z.object({
  kind: z.enum(['first-load', ...SLOT_CAUSES]),
  reason: z.string().nullable(),
  unloadedAtWallMs: z.number().nullable(),
  /** The keep-alive the slot had when it was unloaded by it (ms), else null. */
  keepAliveMs: z.number().nullable(),
});
export type SlotLoadCause = z.infer<typeof SlotLoadCauseSchema>;

/** A request that held a seat or stood ahead in the queue when this one was queued. */
export const BlockerSchema = z.object({
  requestId: z.string(),
  conversationId: z.string().nullable(),
  isRunning: z.boolean(),
});
export type Blocker = z.infer<typeof BlockerSchema>;

/**
 * Remembered context read back from disk while the request was queued (a named share of its
 * `queue` part): pages and bytes read, how long the read took (ms, main-thread stamps), and
 * why it stopped early (a page file refused: missing, short, altered) or null.
 */
export const DiskReadSchema = z.object({
  numPages: z.number().int().min(0),
  numBytes: z.number().int().min(0),
  readMs: z.number().min(0),
  refused: z.string().nullable(),
});
export type DiskReadFact = z.infer<typeof DiskReadSchema>;

/**
 * Facts recorded where they happen (lookup, routing, queueing) that explain a slow first token
 * in words: carried with the timeline, stored and exported with it.
 */
export const DiagnosisSchema = z.object({
  pageMiss: PageMissSchema.nullable(),
  slotLoad: SlotLoadCauseSchema.nullable(),
  /** Up to 8 of the requests ahead when queued; `numQueuedBehind` counts them all. */
  queuedBehind: z.array(BlockerSchema),
  numQueuedBehind: z.number().int().min(0),
  /** Set only when remembered context was read from disk for this request. */
  diskRead: DiskReadSchema.optional(),
});
export type Diagnosis = z.infer<typeof DiagnosisSchema>;

/** A diagnosis with nothing recorded yet. */
export function emptyDiagnosis(): Diagnosis {
  return { pageMiss: null, slotLoad: null, queuedBehind: [], numQueuedBehind: 0 };
}
