import { Tokenizer } from '@huggingface/tokenizers';
import { ChatTemplate } from './chat-template';
import { PROMPT_LIMITS } from '../../limits';
import { canCutAtSpaces } from './safe-cuts';
import { CHUNK_CHARS, SegmentCache } from './segment-cache';

/** One chat turn as the template sees it. */
export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The tokenizer files of a model folder, already parsed. */
export interface TokenizerFiles {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  /** chat_template.jinja when the folder has one (it wins over tokenizer_config's). */
  chatTemplateFile?: string | null;
}

/** The conversation a template is test-rendered with at listing (a system turn is retried without). */
const SAMPLE_CHAT: ChatTurn[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Hello.' },
  { role: 'assistant', content: 'Hello! How can I help?' },
  { role: 'user', content: 'Tell me a story.' },
];

/**
 * Text ↔ token ids for one model, plus its chat template. Encoding never adds special
 * tokens by itself: the chat template (or the caller) places them, so a prompt is exactly
 * the ids the template renders.
 */
export class TextTokenizer {
  private readonly tokenizer: Tokenizer;
  private readonly template: ChatTemplate | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  /** Ids the tokenizer can decode: a model may pad its vocabulary beyond this. */
  readonly vocabSize: number;
  private readonly segments: SegmentCache | null;

  constructor(files: TokenizerFiles) {
    this.tokenizer = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
    const config = files.tokenizerConfig;
    this.bosToken = tokenText(config['bos_token']);
    this.eosToken = tokenText(config['eos_token']);
    this.vocabSize = largestId(this.tokenizer.get_vocab(true).values()) + 1;
    const source = files.chatTemplateFile ?? templateSource(config['chat_template']);
    this.template = source === null ? null : ChatTemplate.parse(source);
    this.segments = this.segmentCacheIfExact(files.tokenizerJson);
  }

  /**
   * The piecewise cache, if it encodes a sample exactly as the whole-text tokenizer does; it
   * chunks long text only when the pipeline allows it (safe-cuts.ts) and a long sample agrees.
   */
  private segmentCacheIfExact(tokenizerJson: Record<string, unknown>): SegmentCache | null {
    const specials = new Map<string, number>();
    for (const [id, token] of this.tokenizer.get_added_tokens_decoder())
      if (token.special) specials.set(token.content, id);
    const encodePiece = (text: string) => this.wholeEncode(text);
    const isExact = (cache: SegmentCache, sample: string) =>
      cache.encode(sample).join() === this.wholeEncode(sample).join();
    const sample =
      [...specials.keys()].join(' Hello,  world!\n') + ' It is a truth universally acknowledged. ';
    if (canCutAtSpaces(tokenizerJson)) {
      const chunked = new SegmentCache(specials, encodePiece, CHUNK_CHARS);
      if (isExact(chunked, sample + LONG_SAMPLE)) return chunked;
    }
    const cache = new SegmentCache(specials, encodePiece);
    return isExact(cache, sample) ? cache : null;
  }

  private wholeEncode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** True when the model ships a chat template. */
  get hasChatTemplate(): boolean {
    return this.template !== null;
  }

  /** Characters of `text` that `encode` would tokenize afresh (the rest come from its cache). */
  numUncachedChars(text: string): number {
    return this.segments ? this.segments.numUncachedChars(text) : text.length;
  }

  /** Token ids of `text`, special-token strings inside it recognised. */
  encode(text: string): number[] {
    return this.segments ? this.segments.encode(text) : this.wholeEncode(text);
  }

  /** `encode`, with the per-part counts another instance's `learn` takes (null: nothing to learn). */
  encodeCounted(text: string): { ids: number[]; numIdsPerPart: number[] | null } {
    return this.segments
      ? this.segments.encodeCounted(text)
      : { ids: this.wholeEncode(text), numIdsPerPart: null };
  }

  /** Caches what another instance of this tokenizer encoded (see SegmentCache.learn). */
  learn(text: string, ids: readonly number[], numIdsPerPart: readonly number[] | null): void {
    if (numIdsPerPart) this.segments?.learn(text, ids, numIdsPerPart);
  }

  /** Text of `ids`; special tokens are dropped unless asked for. */
  decode(ids: readonly number[], isSkippingSpecial = true): string {
    if (ids.length === 0) return '';
    return this.tokenizer.decode([...ids], {
      skip_special_tokens: isSkippingSpecial,
      clean_up_tokenization_spaces: false,
    });
  }

  /** The id of a token string, or undefined when it is not in the vocabulary. */
  idOf(token: string): number | undefined {
    return this.tokenizer.token_to_id(token);
  }

  /**
   * Renders messages through the chat template, ending with the assistant's turn opener.
   * Bounded (TEMPLATE_LIMITS): a runaway template throws TemplateError instead of freezing.
   */
  renderChat(messages: readonly ChatTurn[]): string {
    if (!this.template) return messages.map((m) => m.content).join('\n');
    const inputChars = messages.reduce((sum, m) => sum + m.content.length, 0);
    return this.template.render(
      {
        messages,
        add_generation_prompt: true,
        bos_token: this.bosToken ?? '',
        eos_token: this.eosToken ?? '',
      },
      inputChars,
    );
  }

  /**
   * Test-renders the template on a short conversation (listing calls this, so a broken template
   * marks the model broken instead of failing every request). A template that refuses system
   * turns is retried without one. Throws TemplateError with the reason.
   */
  checkChatTemplate(): void {
    if (!this.template) return;
    try {
      this.renderChat(SAMPLE_CHAT);
    } catch (error) {
      try {
        this.renderChat(SAMPLE_CHAT.slice(1));
      } catch {
        throw error;
      }
    }
  }
}

/**
 * True when `text` is cheap enough to encode on the serving thread: short, or mostly in the
 * tokenizer's cache (a long history with a short new turn), so it never waits for a thread.
 */
export function encodesInline(tokenizer: TextTokenizer, text: string): boolean {
  const limit = PROMPT_LIMITS.inlineTokenizeChars;
  return text.length <= limit || tokenizer.numUncachedChars(text) <= limit;
}

/** Text long enough to be chunked, with the spacing, digits and punctuation a cut may meet. */
const LONG_SAMPLE = Array.from(
  { length: 24 },
  (_, i) =>
    `Mr. Darcy's ${i * 37} letters,  written\tat 4:30 pm (or so)\n\nwere "kind"; ${'ab'.repeat(i)}! don't — é `,
).join(' ');

/** tokenizer_config's chat_template: a string, or a list of named templates whose `default` counts. */
function templateSource(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const named = value.find(
      (t) => t && typeof t === 'object' && (t as { name?: unknown }).name === 'default',
    );
    const template = (named as { template?: unknown } | undefined)?.template;
    return typeof template === 'string' ? template : null;
  }
  return null;
}

/**
 * The largest id, by a loop: spreading a 128k-entry vocabulary into Math.max's arguments
 * overflows the stack (Llama 3, Qwen and Gemma vocabularies are 128k–256k tokens).
 */
function largestId(ids: Iterable<number>): number {
  let largest = -1;
  for (const id of ids) if (id > largest) largest = id;
  return largest;
}

function tokenText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string')
    return (value as { content: string }).content;
  return null;
}
