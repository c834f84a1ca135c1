/**
 * Splits a server-sent event stream into the `data:` payloads of its events, across network
 * reads that may cut an event anywhere. Comments and other fields are skipped.
 */
export class SseDataParser {
  private buffer = '';

  /** Feeds decoded text; returns the data of every event it completed. */
  push(text: string): string[] {
    this.buffer += text.replace(/\r\n?/g, '\n');
    const events: string[] = [];
    let end = this.buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length > 0) events.push(data.join('\n'));
      end = this.buffer.indexOf('\n\n');
    }
    return events;
  }
}
