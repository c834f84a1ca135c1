// Message text is text. A chat message that holds a special token's text ("<|eot_id|>" typed or
// pasted by a user, or in an imported conversation) must reach the model as those characters, not
// as the control token, or a message could close its own turn and open a system one. So before
// the template renders, each special token's text in a message is swapped for a placeholder (one
// private-use character per distinct text) that templates pass through like any other character;
// the tokenizer splits only the template's own text at special tokens and encodes each placeholder
// back as its plain text (llama.cpp's parse_special = false for that span). Private-use characters
// a message already holds are swapped the same way, so none can pose as a placeholder.

/** Placeholders: the Basic Multilingual Plane's private-use area, one UTF-16 unit each. */
const FIRST_PLACEHOLDER = 0xe000;
const NUM_PLACEHOLDERS = 0xf8ff - FIRST_PLACEHOLDER + 1;
const PLACEHOLDER = /[\uE000-\uF8FF]/;

/**
 * A prompt as the tokenizer takes it. `raw`: a completion prompt; special-token text in it is
 * recognised (as llama.cpp's server does for /completion). `chat`: a chat template's render whose
 * message text holds placeholders; `literals[i]` is what placeholder i stands for, as plain text.
 */
export interface PromptText {
  kind: 'raw' | 'chat';
  text: string;
  literals: readonly string[];
}

/** A raw completion prompt. */
export function rawPrompt(text: string): PromptText {
  return { kind: 'raw', text, literals: [] };
}

/** Swaps special-token text (and private-use characters) in message text for placeholders. */
export class LiteralTable {
  readonly literals: string[] = [];
  private readonly indexOf = new Map<string, number>();
  private readonly pattern: RegExp;

  /** `specialTexts`: the texts the tokenizer would otherwise read as control tokens. */
  constructor(specialTexts: Iterable<string>) {
    const alternatives = [...specialTexts]
      .filter((text) => text.length > 0)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    alternatives.push(PLACEHOLDER.source);
    this.pattern = new RegExp(alternatives.join('|'), 'g');
  }

  /** `content` with each special-token text and private-use character as a placeholder. */
  escape(content: string): string {
    return content.replace(this.pattern, (text) => this.placeholderOf(text));
  }

  private placeholderOf(text: string): string {
    let index = this.indexOf.get(text);
    if (index === undefined) {
      index = this.literals.length;
      if (index >= NUM_PLACEHOLDERS)
        throw new RangeError(
          `the messages hold more than ${NUM_PLACEHOLDERS} distinct special-token texts and private-use characters`,
        );
      this.literals.push(text);
      this.indexOf.set(text, index);
    }
    return String.fromCharCode(FIRST_PLACEHOLDER + index);
  }
}

/** `text` with every placeholder of `literals` put back as its plain text (others left as they are). */
export function restoreLiterals(text: string, literals: readonly string[]): string {
  if (literals.length === 0 || !PLACEHOLDER.test(text)) return text;
  let restored = '';
  for (const char of text) {
    const index = char.charCodeAt(0) - FIRST_PLACEHOLDER;
    restored += char.length === 1 && index >= 0 && index < literals.length ? literals[index] : char;
  }
  return restored;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
