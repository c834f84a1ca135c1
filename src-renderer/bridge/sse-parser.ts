/**
 * An incremental server-sent events parser: feed it text as it arrives, get back the data of
 * each complete message (multi-line data joined with \n). Comments are skipped; `retry:`
 * updates `retryMs`.
 */
export class SseParser {
  retryMs: number | null = null;
  private buffer = '';
  private data: string[] = [];

  /** Parses what arrived; returns the complete messages' data, in order. */
  feed(text: string): string[] {
    this.buffer += text;
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop() ?? '';
    const messages: string[] = [];
    for (const rawLine of lines) {
      const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
      if (line === '') {
        if (this.data.length > 0) messages.push(this.data.join('\n'));
        this.data = [];
      } else if (!line.startsWith(':')) this.field(line);
    }
    return messages;
  }

  private field(line: string): void {
    const at = line.indexOf(':');
    const name = at < 0 ? line : line.slice(0, at);
    const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
    if (name === 'data') this.data.push(value);
    else if (name === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }
}
