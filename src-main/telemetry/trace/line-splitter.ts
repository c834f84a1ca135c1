/** One line of a trace: its 1-based number and text, or a note that it was too long to read. */
export type SplitLine = { line: number; text: string } | { line: number; numCharsOver: number };

const BOM = '\uFEFF';

/**
 * Cuts a stream of text chunks into lines without holding more than one line: `\n` ends a
 * line and a `\r` before it is dropped (CRLF files), a UTF-8 byte-order mark at the very start
 * is skipped, and a line longer than `maxLineChars` is not buffered: it comes out once, as too
 * long, when its end arrives.
 */
export class LineSplitter {
  private carry = '';
  private isOverlong = false;
  private lineNumber = 0;
  private isFirstChunk = true;

  constructor(private readonly maxLineChars: number) {}

  /** The lines this chunk completes. */
  push(chunk: string): SplitLine[] {
    let text = chunk;
    if (this.isFirstChunk && text.length > 0) {
      this.isFirstChunk = false;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    const out: SplitLine[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.take(text.slice(start, end), out, true);
      start = end + 1;
    }
    this.take(text.slice(start), out, false);
    return out;
  }

  /** The last line, when the text does not end with a newline. */
  end(): SplitLine[] {
    const out: SplitLine[] = [];
    if (this.carry !== '' || this.isOverlong) this.emit(out);
    return out;
  }

  private take(piece: string, out: SplitLine[], isLineEnd: boolean): void {
    if (!this.isOverlong) {
      this.carry += piece;
      if (this.carry.length > this.maxLineChars) {
        this.isOverlong = true;
        this.carry = '';
      }
    }
    if (isLineEnd) this.emit(out);
  }

  private emit(out: SplitLine[]): void {
    this.lineNumber++;
    if (this.isOverlong) out.push({ line: this.lineNumber, numCharsOver: this.maxLineChars });
    else
      out.push({
        line: this.lineNumber,
        text: this.carry.endsWith('\r') ? this.carry.slice(0, -1) : this.carry,
      });
    this.carry = '';
    this.isOverlong = false;
  }
}
