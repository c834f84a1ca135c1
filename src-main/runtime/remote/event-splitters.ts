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

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

/**
 * Server-sent events: the `data:` lines of each event (joined by newlines). Comments
 * (`: keep-alive`) and other fields are skipped but count toward the event's size; events end
 * at a blank line. Lines end at `\n`, `\r\n` or `\r`, also when a read cuts between `\r` and `\n`.
 * One pass over each read's characters; only `data:` lines are copied.
 */
export function sseSplitter(maxChars: number = REMOTE_LIMITS.maxEventChars): EventSplitter {
  let line = ''; // the start of a line an earlier read cut off
  const data: string[] = [];
  let numEventChars = 0;
  let isAfterCr = false;
  const keep = (numChars: number): void => {
    if (numEventChars + line.length + numChars > maxChars) throw tooLong(maxChars);
  };
  /** Ends the line `line + text[from, to)`: a blank one ends the event. */
  const endLine = (text: string, from: number, to: number, events: string[]): void => {
    const numChars = line.length + to - from;
    if (numChars === 0) {
      if (data.length > 0) events.push(data.length === 1 ? data[0]! : data.join('\n'));
      data.length = 0;
      numEventChars = 0;
      return;
    }
    if (line === '') {
      if (text.startsWith('data:', from))
        data.push(text.slice(from + (text.charCodeAt(from + 5) === SPACE ? 6 : 5), to));
    } else {
      const whole = line + text.slice(from, to);
      if (whole.startsWith('data:')) data.push(whole.slice(whole.startsWith('data: ') ? 6 : 5));
    }
    numEventChars += numChars + 1;
    line = '';
  };
  return {
    push(text) {
      const events: string[] = [];
      let from = isAfterCr && text.charCodeAt(0) === LF ? 1 : 0;
      isAfterCr = false;
      for (let i = from; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code !== LF && code !== CR) continue;
        keep(i - from);
        endLine(text, from, i, events);
        if (code === CR) {
          if (i + 1 === text.length) isAfterCr = true;
          else if (text.charCodeAt(i + 1) === LF) i++;
        }
        from = i + 1;
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
