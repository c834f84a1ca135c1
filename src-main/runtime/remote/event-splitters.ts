import { REMOTE_LIMITS } from '../../limits';
import { MalformedEvent } from './protocol-events';

/**
 * Splits decoded text into complete event payloads, across reads that cut anywhere. Each read
 * is scanned once (never the whole buffer again), and what it holds unsplit never exceeds its
 * cap: text that would take it past the cap throws MalformedEvent before it is kept.
 */
export interface EventSplitter {
  /** Feeds text; returns the payload of every event it completed. */
  push(text: string): string[];
  /** What is left once the stream ends (an event cut off by the end), or null. */
  rest(): string | null;
  /** Characters held for the event not complete yet (at most the cap). */
  readonly numBuffered: number;
}

/** Thrown when one line or event would outgrow the cap (characters). */
function tooLong(maxChars: number): MalformedEvent {
  return new MalformedEvent(
    `a stream event longer than ${Math.round(maxChars / 1024)} KiB (the limit on one event): the server's stream is not read further`,
  );
}

/**
 * Server-sent events: the `data:` lines of each event (joined by newlines). Comments
 * (`: keep-alive`) and other fields are skipped but count toward the event's size; events end
 * at a blank line. Lines end at `\n`, `\r\n` or `\r`, also when a read cuts between `\r` and `\n`.
 */
export function sseSplitter(maxChars: number = REMOTE_LIMITS.maxEventChars): EventSplitter {
  let line = '';
  let data: string[] = [];
  let numEventChars = 0;
  let isAfterCr = false;
  const keep = (numChars: number): void => {
    if (numEventChars + line.length + numChars > maxChars) throw tooLong(maxChars);
  };
  const endLine = (events: string[]): void => {
    if (line === '') {
      if (data.length > 0) events.push(data.join('\n'));
      data = [];
      numEventChars = 0;
    } else {
      if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      numEventChars += line.length + 1;
    }
    line = '';
  };
  return {
    push(text) {
      const events: string[] = [];
      let from = isAfterCr && text.startsWith('\n') ? 1 : 0;
      isAfterCr = false;
      const breaks = /[\r\n]/g;
      breaks.lastIndex = from;
      for (let found = breaks.exec(text); found; found = breaks.exec(text)) {
        keep(found.index - from);
        line += text.slice(from, found.index);
        endLine(events);
        from = found.index + 1;
        if (found[0] === '\r') {
          if (text[from] === '\n') from += 1;
          else if (from === text.length) isAfterCr = true;
        }
        breaks.lastIndex = from;
      }
      keep(text.length - from);
      line += text.slice(from);
      return events;
    },
    rest: () => {
      const left = [...data, line].join('\n');
      return left.trim() === '' ? null : left;
    },
    get numBuffered() {
      return numEventChars + line.length;
    },
  };
}

/** Newline-delimited JSON (Ollama's native stream): one payload per non-empty line. */
export function ndjsonSplitter(maxChars: number = REMOTE_LIMITS.maxEventChars): EventSplitter {
  let line = '';
  return {
    push(text) {
      const lines: string[] = [];
      let from = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', from)) {
        if (line.length + end - from > maxChars) throw tooLong(maxChars);
        lines.push(line + text.slice(from, end));
        line = '';
        from = end + 1;
      }
      if (line.length + text.length - from > maxChars) throw tooLong(maxChars);
      line += text.slice(from);
      return lines.map((l) => l.trim()).filter((l) => l !== '');
    },
    rest: () => (line.trim() === '' ? null : line),
    get numBuffered() {
      return line.length;
    },
  };
}
