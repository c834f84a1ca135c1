import { CHAIN_ROOT } from '../pages/page-key';
import type { PageData } from '../pages/page-data';
import type { CachedPage, RamPages } from '../pages/ram-pages';
import type { Sequence } from './sequence';

/** A page a step completed, as the worker names it: its index in the sequence and its bytes. */
export interface CompletedPage {
  pageIndex: number;
  data: PageData;
}

const NONE: readonly CachedPage[] = [];

/**
 * The pages each sequence holds, page i at index i, with one writer (like nano-vllm's block
 * manager): the cached prefix held at admission, each page its steps complete, all released
 * when it leaves its seat. The RAM tier keeps the pages and counts their holders; only this
 * ledger holds and releases them.
 */
export class PageLedger {
  private readonly held = new Map<Sequence, CachedPage[]>();

  constructor(
    private readonly ramPages: RamPages | null,
    private readonly pageSize: number,
  ) {}

  /** The pages `seq` holds, page i at index i (none when it holds no seat). */
  heldBy(seq: Sequence): readonly CachedPage[] {
    return this.held.get(seq) ?? NONE;
  }

  /** Holds a seated sequence's cached prefix (its lookup's pages, in order). */
  holdPrefix(seq: Sequence, pages: readonly CachedPage[]): void {
    if (this.held.has(seq)) throw new Error(`${seq.seqId} already holds pages`);
    for (const page of pages) this.ramPages!.hold(page);
    this.held.set(seq, [...pages]);
  }

  /**
   * Stores the pages a step of `seq` completed, in order, held by it. A page out of order (one
   * it already holds) or not full is skipped: the next page must follow the last one held.
   */
  addCompleted(seq: Sequence, pages: readonly CompletedPage[]): void {
    const identity = seq.slot.pageIdentity;
    const list = this.held.get(seq);
    if (!this.ramPages || !identity || !list || pages.length === 0) return;
    const allIds = seq.allIds;
    for (const captured of [...pages].sort((a, b) => a.pageIndex - b.pageIndex)) {
      if (captured.pageIndex !== list.length) continue;
      const from = captured.pageIndex * this.pageSize;
      const tokenIds = allIds.slice(from, from + this.pageSize);
      if (tokenIds.length !== this.pageSize) continue;
      const parent = list[captured.pageIndex - 1]?.hash ?? CHAIN_ROOT;
      list.push(this.ramPages.insertHeld(identity, captured.pageIndex, parent, tokenIds, captured.data));
    }
  }

  /** Releases every page `seq` holds (it finished or was preempted; they stay cached), recording its conversation reached them. */
  releaseAll(seq: Sequence): void {
    const last = this.held.get(seq)?.at(-1);
    const { conversationId } = seq.request;
    if (last && conversationId) this.ramPages?.noteConversation(conversationId, last);
    for (const page of this.held.get(seq) ?? NONE) this.ramPages?.release(page);
    this.held.delete(seq);
  }
}
