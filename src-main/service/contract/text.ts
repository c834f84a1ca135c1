import { z } from 'zod';

// A lone UTF-16 surrogate: half of a pair, with no other half (`\p{Cs}` in a `u` regex matches
// only those; a complete pair is one code point).
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Text that is stored or tokenized, refused when it holds a lone UTF-16 surrogate (`"x\ud800y"`):
 * SQLite and the tokenizer would each turn it into U+FFFD without saying so, so the message kept
 * would not be the one sent. The error names the position; every transport (IPC, `/api/call`,
 * `/v1`) validates with these schemas, so each refuses the same way.
 */
export function wellFormedText(schema: z.ZodString = z.string()): z.ZodString {
  return schema.refine((text) => !LONE_SURROGATE.test(text), {
    error: (issue) => {
      const at = LONE_SURROGATE.exec(String(issue.input));
      const code = at ? at[0].charCodeAt(0).toString(16) : '';
      return `has a broken character at position ${(at?.index ?? 0) + 1} (a lone UTF-16 surrogate, \\u${code}); only well-formed Unicode text is accepted`;
    },
  });
}
