import { HTTP_LIMITS, PROMPT_LIMITS } from '../../src-main/limits';
import { positiveControlRecords } from '../../src-main/telemetry/trace/controls';

const SENTENCE = 'It is a truth universally acknowledged, that a single man must be in want of a wife. ';

/** `numChars` characters of English prose. */
export function proseOf(numChars: number): string {
  return SENTENCE.repeat(Math.ceil(numChars / SENTENCE.length)).slice(0, numChars);
}

/** Request lines `new URL()` rejects, and paths whose percent-encoding does not decode. */
export const BAD_REQUEST_LINES = [
  'GET //[ HTTP/1.1',
  'GET http://a:99999/ HTTP/1.1',
  'GET http://%zz/ HTTP/1.1',
  'GET /%zz HTTP/1.1',
  'POST /api/call/%E0%A4%A HTTP/1.1',
];

/** A prompt just inside the 1 MiB body limit: refused by characters, never tokenized. */
export const NEAR_BODY_LIMIT_PROMPT = proseOf(HTTP_LIMITS.maxBodyBytes - 4_096);

/** A prompt at the character bound of a 4,096-token limit: tokenized off-thread, then over the token limit. */
export const CHAR_BOUND_PROMPT = proseOf(4_096 * PROMPT_LIMITS.maxCharsPerToken);

/** Names a spreadsheet would run as formulas (must come out neutralised in CSV). */
export const FORMULA_NAMES = [
  '=HYPERLINK("http://evil.example","x")',
  "=cmd|' /C calc'!A0",
  '@SUM(1)',
  '+1+1',
];

/**
 * A trace a hostile or unlucky user might import: a byte-order mark, CRLF line ends, a record
 * claiming 120,000,000 output tokens, one with a formula for an id, a truncated line, and
 * `numGood` valid records. Returns the text and how many lines must import.
 */
export function hostileTrace(numGood: number, tag: string): { text: string; numGood: number } {
  const base = positiveControlRecords()[0]!;
  const lines = [
    JSON.stringify({ ...base, request_id: `${tag}-huge`, output_tokens: 120_000_000 }),
    JSON.stringify({ ...base, request_id: `=HYPERLINK("http://evil.example","${tag}")` }),
    '{"request_id": "truncated", "prompt_tokens": 1',
  ];
  for (let i = 0; i < numGood; i++) lines.push(JSON.stringify({ ...base, request_id: `${tag}-${i}` }));
  return { text: `\uFEFF${lines.join('\r\n')}\r\n`, numGood: numGood + 1 };
}

/** About `megabytes` MB of valid seed 003 records. */
export function bulkTrace(megabytes: number, tag: string): { text: string; numGood: number } {
  const base = positiveControlRecords()[0]!;
  const lines: string[] = [];
  let numChars = 0;
  for (let i = 0; numChars < megabytes * 1e6; i++) {
    const line = JSON.stringify({ ...base, request_id: `${tag}-${i}-bulk-padding` });
    lines.push(line);
    numChars += line.length + 1;
  }
  return { text: lines.join('\n'), numGood: lines.length };
}
