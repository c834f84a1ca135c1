/** Splits decoded text into complete event payloads, across reads that cut anywhere. */
export interface EventSplitter {
  /** Feeds text; returns the payload of every event it completed. */
  push(text: string): string[];
  /** What is left once the stream ends (an event cut off by the end), or null. */
  rest(): string | null;
}

/**
 * Server-sent events: the `data:` lines of each event (joined by newlines). Comments
 * (`: keep-alive`) and other fields are skipped; events end at a blank line.
 */
export function sseSplitter(): EventSplitter {
  let buffer = '';
  return {
    push(text) {
      buffer += text.replace(/\r\n?/g, '\n');
      const events: string[] = [];
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
        buffer = buffer.slice(end + 2);
        if (data.length > 0) events.push(data.join('\n'));
        end = buffer.indexOf('\n\n');
      }
      return events;
    },
    rest: () => (buffer.trim() === '' ? null : buffer),
  };
}

/** Newline-delimited JSON (Ollama's native stream): one payload per non-empty line. */
export function ndjsonSplitter(): EventSplitter {
  let buffer = '';
  return {
    push(text) {
      buffer += text;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      return lines.map((l) => l.trim()).filter((l) => l !== '');
    },
    rest: () => (buffer.trim() === '' ? null : buffer),
  };
}
