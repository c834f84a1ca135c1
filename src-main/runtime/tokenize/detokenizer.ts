/** Decodes token ids to text; the tokenizer's job, seen through the one method streaming needs. */
export interface Decoder {
  decode(ids: readonly number[]): string;
}

/**
 * Turns a growing list of token ids into text deltas (vLLM's incremental scheme): decode a
 * small window, emit only what is stable, and hold back a trailing incomplete UTF-8 character.
 */
export class IncrementalDetokenizer {
  private readonly ids: number[] = [];
  private prefixOffset = 0;
  private readOffset = 0;

  constructor(private readonly decoder: Decoder) {}

  /** Appends one token and returns the new text it completes (possibly empty). */
  push(tokenId: number): string {
    this.ids.push(tokenId);
    const prefixText = this.decoder.decode(this.ids.slice(this.prefixOffset, this.readOffset));
    const fullText = this.decoder.decode(this.ids.slice(this.prefixOffset));
    if (fullText.length <= prefixText.length || fullText.endsWith('\uFFFD')) return '';
    this.prefixOffset = this.readOffset;
    this.readOffset = this.ids.length;
    return fullText.slice(prefixText.length);
  }
}
