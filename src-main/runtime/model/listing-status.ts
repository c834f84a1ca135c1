// No Node imports: the renderer's contract schemas and views import these names too.

/**
 * What the catalogue makes of a listed model: `ok` (it runs), `unsupported` (a valid file of a kind
 * First Frame does not run yet: an architecture, a pre-tokenizer) or `broken` (unreadable, cut
 * short, inconsistent: nothing would make it run as it is).
 */
export const LISTING_STATUSES = ['ok', 'unsupported', 'broken'] as const;
/** See LISTING_STATUSES. */
export type ListingStatus = (typeof LISTING_STATUSES)[number];
/** A status that keeps a model from running; its entry carries the reason. */
export type UnusableStatus = Exclude<ListingStatus, 'ok'>;

/** Each unusable status in the words every surface puts before the reason (picker, Slots, CLI, /v1). */
export const UNUSABLE_WORDS: Record<UnusableStatus, string> = {
  unsupported: 'not supported yet',
  broken: 'cannot load',
};

/** "not supported yet: architecture gemma3 (supported: …)", "cannot load: config.json: missing …". */
export function unusableSentence(status: UnusableStatus, reason: string): string {
  return `${UNUSABLE_WORDS[status]}: ${reason}`;
}

/** Why a listed model cannot run, in those words, or null when it runs (picker, Slots, problems). */
export function whyUnusable(model: { status: ListingStatus; error: string | null }): string | null {
  return model.status === 'ok' ? null : unusableSentence(model.status, model.error ?? 'no reason given');
}

/**
 * A valid model file of a kind First Frame does not run yet: `what` names it (`architecture
 * gemma3`), `supported` lists what does run, read from the declaration that decides it.
 */
export class NotSupportedYet extends Error {
  constructor(
    readonly what: string,
    readonly supported: readonly string[],
  ) {
    super(`${what} (supported: ${supported.join(', ')})`);
    this.name = 'NotSupportedYet';
  }
}
