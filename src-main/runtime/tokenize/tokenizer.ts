import { Tokenizer } from '@huggingface/tokenizers';
import { ChatTemplate, TemplateError } from './chat-template';
import { LiteralTable } from './chat-literals';
import type { PromptText } from './chat-literals';
import { PROMPT_LIMITS } from '../../limits';
import { canCutAtSpaces } from './safe-cuts';
import { CHUNK_CHARS, SegmentCache } from './segment-cache';
import type { PieceBacking, TokenStrip } from './segment-cache';
import { packVocab, VocabDecoder } from './vocab-decoder';
import type { PackedVocab } from './vocab-decoder';

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

/** A chat ready for its template: see TextTokenizer.chatInput. */
export interface ChatInput {
  /** The template's variables (messages escaped, generation prompt on, BOS/EOS texts). */
  items: { messages: ChatTurn[]; add_generation_prompt: boolean; bos_token: string; eos_token: string };
  /** Characters of the messages' own text (bounds the text a render may produce). */
  inputChars: number;
  /** What each placeholder in the escaped text stands for. */
  literals: readonly string[];
  /** The prompt when the model has no template: the escaped messages, one per line. */
  untemplated: PromptText;
}

/**
 * What the serving thread holds of a tokenizer built in another thread (TextTokenizer.facts):
 * enough to render chats, add BOS/EOS, learn ids and decode, so it never builds a large
 * vocabulary's tokenizer itself. Plain data (structured clone).
 */
export interface TokenizerFacts {
  bosToken: string | null;
  eosToken: string | null;
  addedBosId: number | null;
  addedEosId: number | null;
  vocabSize: number;
  specials: Array<[string, number]>;
  strips: Array<[string, TokenStrip]>;
  templateSource: string | null;
  /** The piecewise cache the full build chose after its exactness check (SegmentMode). */
  segmentMode: SegmentMode;
  vocab: PackedVocab;
}

/** A piecewise cache cutting long pieces into chunks, one over whole pieces, or none (not exact). */
type SegmentMode = 'chunked' | 'whole' | 'none';

/** The conversation a template is test-rendered with at listing (a system turn is retried without). */
const SAMPLE_CHAT: ChatTurn[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Hello.' },
  { role: 'assistant', content: 'Hello! How can I help?' },
  { role: 'user', content: 'Tell me a story.' },
];

/**
 * Text ↔ token ids for one model, plus its chat template. `encode` never adds special tokens by
 * itself; `encodePrompt` adds BOS/EOS where the model asks for them (add_bos_token/add_eos_token)
 * as llama.cpp does: always on a raw prompt, and on a chat only where the template did not place
 * them already. Message text in a chat is always text (chat-literals.ts).
 */
export class TextTokenizer {
  /** The library's tokenizer: built by the constructor, or (from facts) only when something must encode here. */
  private library: Tokenizer | null = null;
  private readonly template: ChatTemplate | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  /** BOS/EOS ids `encodePrompt` adds (null: the model does not ask for one). */
  readonly addedBosId: number | null;
  readonly addedEosId: number | null;
  /** Ids the tokenizer can decode: a model may pad its vocabulary beyond this. */
  readonly vocabSize: number;
  /** Special tokens (control tokens) by text: what message text must never become. */
  private readonly specials = new Map<string, number>();
  /** Special tokens that take the whitespace beside them (added tokens' lstrip/rstrip). */
  private readonly strips = new Map<string, TokenStrip>();
  private readonly segmentMode: SegmentMode;
  private readonly segments: SegmentCache | null;
  /** Decodes without the library's tokenizer (built from facts). */
  private readonly vocabDecoder: VocabDecoder | null = null;
  /** The same tokenizer without its special tokens, built when message text first holds one. */
  private plainTokenizer: Tokenizer | null = null;
  private loadedFiles: TokenizerFiles | null = null;

  /**
   * Built from the tokenizer files; or from facts another thread's instance gave (`facts()`), with
   * the files read and the library's tokenizer built only if something must encode on this thread.
   */
  constructor(files: TokenizerFiles);
  constructor(files: () => TokenizerFiles, facts: TokenizerFacts);
  constructor(
    private readonly source: TokenizerFiles | (() => TokenizerFiles),
    facts?: TokenizerFacts,
  ) {
    if (facts) {
      ({ bosToken: this.bosToken, eosToken: this.eosToken, vocabSize: this.vocabSize } = facts);
      ({ addedBosId: this.addedBosId, addedEosId: this.addedEosId } = facts);
      facts.specials.forEach(([text, id]) => this.specials.set(text, id));
      facts.strips.forEach(([text, strip]) => this.strips.set(text, strip));
      this.template = facts.templateSource === null ? null : ChatTemplate.parse(facts.templateSource);
      this.vocabDecoder = new VocabDecoder(facts.vocab);
      this.segmentMode = facts.segmentMode;
      this.segments = facts.segmentMode === 'none' ? null : this.segmentCache(facts.segmentMode);
      return;
    }
    const config = this.files.tokenizerConfig;
    this.bosToken = tokenText(config['bos_token']);
    this.eosToken = tokenText(config['eos_token']);
    const adds = addedSpecials(this.files);
    this.addedBosId = adds.bos && this.bosToken !== null ? (this.idOf(this.bosToken) ?? null) : null;
    this.addedEosId = adds.eos && this.eosToken !== null ? (this.idOf(this.eosToken) ?? null) : null;
    this.vocabSize = largestId(this.tokenizer.get_vocab(true).values()) + 1;
    const template = this.files.chatTemplateFile ?? templateSource(config['chat_template']);
    this.template = template === null ? null : ChatTemplate.parse(template);
    for (const [id, token] of this.tokenizer.get_added_tokens_decoder()) {
      if (!token.special) continue;
      this.specials.set(token.content, id);
      if (token.lstrip || token.rstrip)
        this.strips.set(token.content, { lstrip: token.lstrip, rstrip: token.rstrip });
    }
    this.segmentMode = this.segmentModeIfExact(this.files.tokenizerJson);
    this.segments = this.segmentMode === 'none' ? null : this.segmentCache(this.segmentMode);
  }

  /** The tokenizer files (read on first need when built from facts). */
  private get files(): TokenizerFiles {
    return (this.loadedFiles ??= typeof this.source === 'function' ? this.source() : this.source);
  }

  /** The library's tokenizer, built here on first need when this instance came from facts. */
  private get tokenizer(): Tokenizer {
    return (this.library ??= withTiedMergeRanks(
      new Tokenizer(this.files.tokenizerJson, this.files.tokenizerConfig),
      this.files,
    ));
  }

  /** True when the library's tokenizer is built on this thread (false: built from facts, nothing encoded here yet). */
  get isBuiltHere(): boolean {
    return this.library !== null;
  }

  /** What another thread needs to hold this tokenizer without building it (see TokenizerFacts). */
  facts(): TokenizerFacts {
    return {
      bosToken: this.bosToken,
      eosToken: this.eosToken,
      addedBosId: this.addedBosId,
      addedEosId: this.addedEosId,
      vocabSize: this.vocabSize,
      specials: [...this.specials],
      strips: [...this.strips],
      templateSource: this.templateSource,
      segmentMode: this.segmentMode,
      vocab: packVocab(this.tokenizer),
    };
  }

  /**
   * The piecewise cache's mode, if it encodes a sample exactly as the whole-text tokenizer does;
   * it chunks long text only when the pipeline allows it (safe-cuts.ts) and a long sample agrees.
   */
  private segmentModeIfExact(tokenizerJson: Record<string, unknown>): SegmentMode {
    const isExact = (cache: SegmentCache, sample: string) =>
      cache.encode(sample).join() === this.wholeEncode(sample).join();
    const sample =
      [...this.specials.keys()].join(' Hello,  world!\n') + ' It is a truth universally acknowledged. ';
    if (canCutAtSpaces(tokenizerJson) && isExact(this.segmentCache('chunked'), sample + LONG_SAMPLE))
      return 'chunked';
    return isExact(this.segmentCache('whole'), sample) ? 'whole' : 'none';
  }

  private segmentCache(mode: Exclude<SegmentMode, 'none'>): SegmentCache {
    return new SegmentCache(
      this.specials,
      (text) => this.wholeEncode(text),
      (text) => this.plainEncode(text),
      mode === 'chunked' ? CHUNK_CHARS : null,
      this.strips,
    );
  }

  private wholeEncode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /**
   * `text` with special-token text in it read as plain text (llama.cpp's parse_special = false):
   * the same pipeline with the special tokens taken out of the added tokens, so they are not split
   * out first; user-defined added tokens still are, as llama.cpp splits them either way.
   */
  private plainEncode(text: string): number[] {
    if (!this.plainTokenizer) {
      const json = this.files.tokenizerJson;
      const added = Array.isArray(json['added_tokens']) ? (json['added_tokens'] as unknown[]) : [];
      this.plainTokenizer = withTiedMergeRanks(
        new Tokenizer(
          { ...json, added_tokens: added.filter((t) => (t as { special?: unknown }).special !== true) },
          this.files.tokenizerConfig,
        ),
        this.files,
      );
    }
    return this.plainTokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** True when the model ships a chat template. */
  get hasChatTemplate(): boolean {
    return this.template !== null;
  }

  /** Characters of `text` that `encode` would tokenize afresh (the rest come from its cache). */
  numUncachedChars(text: string, literals: readonly string[] = []): number {
    return this.segments ? this.segments.numUncachedChars(text, literals) : text.length;
  }

  /** Token ids of `text`, special-token strings inside it recognised; nothing added. */
  encode(text: string): number[] {
    return this.encodeCounted(text).ids;
  }

  /** Token ids of `text` read as plain text: special-token text in it stays text (parse_special = false). */
  encodePlain(text: string): number[] {
    const table = new LiteralTable(this.specials.keys());
    return this.encodeCounted(table.escape(text), table.literals).ids;
  }

  /** The model's ids for a prompt: its text encoded, then BOS/EOS added where the model asks. */
  encodePrompt(prompt: PromptText): number[] {
    return this.withAddedSpecials(prompt, this.encodeCounted(prompt.text, prompt.literals).ids);
  }

  /**
   * `encode` (placeholders of a chat put back as plain text), with the per-part counts another
   * instance's `learn` takes (null: nothing to learn). Nothing is added: see withAddedSpecials.
   */
  encodeCounted(
    text: string,
    literals: readonly string[] = [],
  ): { ids: number[]; numIdsPerPart: number[] | null } {
    if (this.segments) return this.segments.encodeCounted(text, literals);
    // The piecewise reading differs from the whole-text one here: a chat's literals still need it.
    if (literals.length > 0)
      return { ids: this.segmentCache('whole').encode(text, literals), numIdsPerPart: null };
    return { ids: this.wholeEncode(text), numIdsPerPart: null };
  }

  /**
   * A prompt's encoded text with BOS/EOS added where the model asks for them. A raw prompt always
   * gets them (llama.cpp's server adds BOS even to a prompt that starts with one); a chat only
   * where its template did not already put one there (llama.cpp strips the template's and adds it).
   */
  withAddedSpecials(prompt: PromptText, ids: readonly number[]): number[] {
    const isChat = prompt.kind === 'chat';
    const bos = this.addedBosId;
    const eos = this.addedEosId;
    const start = bos !== null && !(isChat && ids[0] === bos) ? [bos] : [];
    const end = eos !== null && !(isChat && ids.length > 0 && ids[ids.length - 1] === eos) ? [eos] : [];
    return [...start, ...ids, ...end];
  }

  /**
   * Keeps the ids of every piece this tokenizer's cache learns in `backing` too, and asks it
   * before encoding one (SegmentCache.backWith). False when this tokenizer has no piecewise cache.
   */
  rememberPiecesIn(backing: PieceBacking): boolean {
    this.segments?.backWith(backing);
    return this.segments !== null;
  }

  /** The pieces of `text` this tokenizer's cache (or its remembered ids) holds (SegmentCache.heldPieces). */
  heldPieces(text: string, literals: readonly string[] = []): [string, number[]][] {
    return this.segments?.heldPieces(text, literals) ?? [];
  }

  /** Caches pieces another instance of this tokenizer held (SegmentCache.rememberPieces). */
  rememberPieces(pieces: readonly (readonly [string, number[]])[]): void {
    this.segments?.rememberPieces(pieces);
  }

  /** Caches what another instance of this tokenizer encoded (see SegmentCache.learn). */
  learn(
    text: string,
    ids: readonly number[],
    numIdsPerPart: readonly number[] | null,
    literals: readonly string[] = [],
  ): void {
    if (numIdsPerPart) this.segments?.learn(text, ids, numIdsPerPart, literals);
  }

  /** Text of `ids`; special tokens are dropped unless asked for. */
  decode(ids: readonly number[], isSkippingSpecial = true): string {
    if (ids.length === 0) return '';
    if (this.vocabDecoder) return this.vocabDecoder.decode(ids, isSkippingSpecial);
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
   * Renders messages through the chat template, ending with the assistant's turn opener; special
   * tokens in message text come back as placeholders, so only the template's own become control
   * tokens (chat-literals.ts). Bounded (TEMPLATE_LIMITS; `maxSteps` bounds it tighter): a
   * runaway template throws TemplateError.
   */
  renderChat(messages: readonly ChatTurn[], maxSteps?: number): PromptText {
    const chat = this.chatInput(messages);
    if (!this.template) return chat.untemplated;
    return {
      kind: 'chat',
      text: this.template.render(chat.items, chat.inputChars, maxSteps),
      literals: chat.literals,
    };
  }

  /**
   * renderChat within the serving thread's budget (ChatTemplate.renderInline); null when the
   * template needs more: render it with `chatInput` in the template thread instead.
   */
  renderChatInline(messages: readonly ChatTurn[]): PromptText | null {
    const chat = this.chatInput(messages);
    if (!this.template) return chat.untemplated;
    const text = this.template.renderInline(chat.items, chat.inputChars);
    return text === null ? null : { kind: 'chat', text, literals: chat.literals };
  }

  /** Tells the template how many steps its render took in the template thread (ChatTemplate.noteThreadRender). */
  noteThreadRender(numSteps: number): void {
    this.template?.noteThreadRender(numSteps);
  }

  /** The chat template's text (null: the model has none). */
  get templateSource(): string | null {
    return this.template?.source ?? null;
  }

  /**
   * What the template renders for `messages`: its variables (message text escaped: see
   * renderChat), the messages' characters (its string bound), the literals the escapes stand for,
   * and the prompt used when there is no template. Throws TemplateError when escaping fails.
   */
  chatInput(messages: readonly ChatTurn[]): ChatInput {
    const table = new LiteralTable(this.specials.keys());
    let escaped: ChatTurn[];
    try {
      escaped = messages.map((m) => ({ ...m, content: table.escape(m.content) }));
    } catch (error) {
      throw new TemplateError(`could not be given the messages: ${(error as Error).message}`);
    }
    const literals = table.literals;
    return {
      items: {
        messages: escaped,
        add_generation_prompt: true,
        bos_token: this.bosToken ?? '',
        eos_token: this.eosToken ?? '',
      },
      inputChars: messages.reduce((sum, m) => sum + m.content.length, 0),
      literals,
      untemplated: { kind: 'chat', text: escaped.map((m) => m.content).join('\n'), literals },
    };
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
 * True when a prompt is cheap enough to encode on the serving thread: short, or mostly in the
 * tokenizer's cache (a long history with a short new turn), so it never waits for a thread.
 */
export function encodesInline(tokenizer: TextTokenizer, prompt: PromptText): boolean {
  // Built from facts: encoding here would first build the whole tokenizer on the serving thread.
  if (!tokenizer.isBuiltHere) return false;
  const limit = PROMPT_LIMITS.inlineTokenizeChars;
  return prompt.text.length <= limit || tokenizer.numUncachedChars(prompt.text, prompt.literals) <= limit;
}

/**
 * Whether the model asks for BOS/EOS on every prompt: tokenizer_config's add_bos_token and
 * add_eos_token (a GGUF's are written there, llama.cpp's defaults applied), or else whether
 * tokenizer.json's post-processor template puts them around a single text (Llama 3's folders).
 */
function addedSpecials(files: TokenizerFiles): { bos: boolean; eos: boolean } {
  const config = files.tokenizerConfig;
  const single = templateSingle(files.tokenizerJson['post_processor']);
  const isAt = (index: number, token: unknown) => {
    const special = single?.at(index)?.['SpecialToken'] as { id?: unknown } | undefined;
    return special !== undefined && special.id === tokenText(token);
  };
  return {
    bos:
      typeof config['add_bos_token'] === 'boolean' ? config['add_bos_token'] : isAt(0, config['bos_token']),
    eos:
      typeof config['add_eos_token'] === 'boolean' ? config['add_eos_token'] : isAt(-1, config['eos_token']),
  };
}

/** The `single` pieces of a TemplateProcessing post-processor (also inside a Sequence), or null. */
function templateSingle(processor: unknown): Array<Record<string, unknown>> | null {
  if (!processor || typeof processor !== 'object') return null;
  const p = processor as { type?: unknown; single?: unknown; processors?: unknown };
  if (p.type === 'TemplateProcessing' && Array.isArray(p.single))
    return p.single as Array<Record<string, unknown>>;
  if (p.type === 'Sequence' && Array.isArray(p.processors))
    for (const inner of p.processors) {
      const found = templateSingle(inner);
      if (found) return found;
    }
  return null;
}

/** Text long enough to be chunked, with the spacing, digits and punctuation a cut may meet. */
const LONG_SAMPLE = Array.from(
  { length: 24 },
  (_, i) =>
    `Mr. Darcy's ${i * 37} letters,  written\tat 4:30 pm (or so)\n\nwere "kind"; ${'ab'.repeat(i)}! don't — é `,
).join(' ');

/**
 * A BPE model whose tokenizer.json gives `merge_ranks` (a GGUF's SentencePiece vocabulary, where
 * merges of equal score share a rank: gguf-tokenizer.ts) ranks its merges by them, so equal ranks
 * go leftmost first as llama.cpp's SentencePiece does. Reaches into the library's BPE model (its
 * `bpe_ranks` map, keyed by the JSON of the pair); a library without that map is left as it is.
 */
function withTiedMergeRanks(tokenizer: Tokenizer, files: TokenizerFiles): Tokenizer {
  const model = files.tokenizerJson['model'] as { merges?: unknown; merge_ranks?: unknown } | undefined;
  const bpe = tokenizer.model as unknown as { bpe_ranks?: unknown };
  if (!Array.isArray(model?.merge_ranks) || !Array.isArray(model.merges) || !(bpe.bpe_ranks instanceof Map))
    return tokenizer;
  const ranks = model.merge_ranks as number[];
  const pairs = model.merges as string[][];
  const bpeRanks = bpe.bpe_ranks as Map<string, number>;
  // Only tied merges differ from their place in the list (a few, where scores repeat).
  ranks.forEach((rank, i) => {
    if (rank !== i) bpeRanks.set(JSON.stringify(pairs[i]), rank);
  });
  return tokenizer;
}

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
