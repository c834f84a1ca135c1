/**
 * What a JSON text will cost to parse, measured before it is parsed: nesting depth and items
 * (every array and object, plus one per member after the first), counted in one pass over its
 * UTF-8 bytes, chunk by chunk, so an over-limit text is refused after the first bytes that show
 * it (a 50 MB file nested 25M deep, a 1 MiB body nested 500k deep) instead of after a parse of
 * seconds. The count never decides validity: JSON.parse still does.
 *
 * This module imports nothing: every room may read it.
 */

/** The most a JSON text may cost: how deep it nests, and how many items it holds. */
export interface JsonWorkLimits {
  maxDepth: number;
  maxItems: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Counts a JSON text's depth and items as its bytes arrive; says why the first time a limit is passed. */
export class JsonWorkMeter {
  private depth = 0;
  private numItems = 0;
  private isInString = false;
  private isEscaped = false;

  constructor(private readonly limits: JsonWorkLimits) {}

  /** Scans the next bytes of the text: why it is over its limits (a sentence), or null while it is not. */
  feed(bytes: Uint8Array): string | null {
    const { maxDepth } = this.limits;
    let { depth, numItems, isInString, isEscaped } = this;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (isInString) {
        if (isEscaped) isEscaped = false;
        else if (byte === BACKSLASH) isEscaped = true;
        else if (byte === QUOTE) isInString = false;
        continue;
      }
      if (byte === QUOTE) isInString = true;
      else if (byte === COMMA) numItems++;
      else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
        numItems++;
        if (++depth > maxDepth) return `is nested deeper than ${maxDepth} levels`;
      } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) depth--;
    }
    this.depth = depth;
    this.numItems = numItems;
    this.isInString = isInString;
    this.isEscaped = isEscaped;
    return numItems > this.limits.maxItems
      ? `holds more than ${this.limits.maxItems.toLocaleString('en-US')} items (array elements and object members)`
      : null;
  }
}

/** Characters of a text measured at a time: an over-limit text stops after the slice that shows it. */
const TEXT_SLICE_CHARS = 64 * 1024;
const encoder = new TextEncoder();

/**
 * Why a whole JSON `text` (already in memory) is over `limits`, or null when it is within them.
 * A surrogate pair cut between slices encodes as U+FFFD: no structural character, same count.
 */
export function jsonTextWorkProblem(text: string, limits: JsonWorkLimits): string | null {
  const meter = new JsonWorkMeter(limits);
  for (let at = 0; at < text.length; at += TEXT_SLICE_CHARS) {
    const problem = meter.feed(encoder.encode(text.slice(at, at + TEXT_SLICE_CHARS)));
    if (problem !== null) return problem;
  }
  return null;
}
