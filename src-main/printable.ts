/**
 * Every line a command or the serving process prints to a terminal goes through here, because
 * the text in it may come from anyone: a run named by an imported trace, a model folder's name,
 * a request's path, a model's output. Control characters (C0 and C1, DEL) and the bidirectional
 * overrides are printed as escapes (`\x1b`, `\u202e`), so a name can never set the terminal's
 * title, clear it, move its cursor or reorder what it shows. JSON output needs nothing more:
 * JSON.stringify escapes C0 itself. A lint rule keeps console.* out of the commands (src-main/cli,
 * bench), the HTTP host and the store except through here.
 *
 * This module imports only Node's own modules: every room may read it.
 */
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';

/** Which layout characters a text keeps: `lines` keeps newlines and tabs (a report), `none` keeps none (a name). */
export type Layout = 'lines' | 'none';

// C0 controls, DEL, C1 controls, and the bidi marks, embeddings, overrides and isolates: matching
// control characters is this pattern's whole point.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character written as an escape, except the layout `layout` keeps. */
export function printable(text: string, layout: Layout = 'lines'): string {
  return text.replace(UNSAFE, (char) => {
    if (layout === 'lines' && (char === '\n' || char === '\t')) return char;
    const code = char.charCodeAt(0);
    return NAMED[char] ?? (code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
  });
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/** Prints a line (or lines) to stdout, control characters escaped. */
export function print(text = ''): void {
  console.log(printable(text));
}

/** Prints a line (or lines) to stderr, control characters escaped. */
export function printError(text: string): void {
  console.error(printable(text));
}

/** Writes text to stdout as it streams (a model's answer), control characters escaped, no newline added. */
export function printPart(text: string): void {
  process.stdout.write(printable(text));
}

/** A status line on stderr: redrawn in place on a terminal (padded to `width`), one line each otherwise. */
export function printStatus(line: string, width: number): void {
  const safe = printable(line, 'none');
  if (process.stderr.isTTY) process.stderr.write(`\r${safe.padEnd(width)}`);
  else console.error(safe);
}

/**
 * A stream that writes what it is given to `out` with control characters escaped (newlines and
 * tabs kept): data a command streams to a terminal (an export) reads as text there, never as
 * terminal commands. Characters cut between chunks are joined first.
 */
export function printableTo(out: NodeJS.WritableStream): Writable {
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.write(printable(decoder.write(chunk)), done);
    },
    final(done) {
      out.write(printable(decoder.end()), done);
    },
  });
}
