import type { CatalogueModel } from '../model/catalogue';
import type { TextTokenizer } from './tokenizer';
import { RememberedTokenIds, tokenIdsKeyOf } from './remembered-token-ids';
import type { TokenIdRows } from './token-id-rows';

/**
 * Gives each model's tokenizer its remembered token ids (RememberedTokenIds) the first time a
 * prompt of that model is encoded: one backing per tokenizer instance, keyed by its revision.
 */
export class TokenIdMemory {
  private readonly byTokenizer = new WeakMap<TextTokenizer, RememberedTokenIds>();
  private readonly all = new Set<RememberedTokenIds>();

  constructor(
    private readonly rows: TokenIdRows,
    private readonly wallNow: () => number,
    private readonly warn: (message: string) => void,
  ) {}

  /** Backs the model's tokenizer with the history's ids (once per tokenizer instance). */
  attach(model: CatalogueModel): void {
    const tokenizer = model.folder.tokenizer;
    if (this.byTokenizer.has(tokenizer)) return;
    const key = tokenIdsKeyOf(model.revisions.tokenizerRevision);
    const remembered = new RememberedTokenIds(this.rows, key, this.wallNow, this.warn);
    this.byTokenizer.set(tokenizer, remembered);
    if (tokenizer.rememberPiecesIn(remembered)) this.all.add(remembered);
  }

  /**
   * Forgets remembered ids: every row (null), or those of these tokenizer revisions. Ids still
   * waiting to be written are dropped first. Returns the rows removed.
   */
  forget(tokenizerRevisions: readonly string[] | null): number {
    const keys = tokenizerRevisions?.map(tokenIdsKeyOf) ?? null;
    for (const remembered of this.all)
      if (!keys || keys.includes(remembered.tokenizerKey)) remembered.discard();
    return this.rows.forget(keys);
  }

  /** Writes every id still waiting (the runtime is closing). */
  flush(): void {
    for (const remembered of this.all) remembered.flush();
  }
}
