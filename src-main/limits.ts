/**
 * Every limit on what crosses the app's edges, named once: HTTP bodies and timeouts, uploads,
 * trace files and the values inside them, the prompt's character bound, the history writer's
 * queue and retries. The runtime's request limits (prompt and output tokens, queue length,
 * deadlines) are runtime settings and live there (runtime/settings); the prompt's character
 * bound below is derived from them, never copied.
 *
 * This module imports nothing: every room may read it.
 */

const KIB = 1024;
const MIB = 1024 * KIB;
const DAY_MS = 86_400_000;

/** What one HTTP request may send, and how long it may take to send it. */
export const HTTP_LIMITS = {
  /** Largest body of an `/api/call/…` or `/v1/…` request (bytes): far more than any prompt fits. */
  maxBodyBytes: 1 * MIB,
  /** Largest body of `traces.import` (bytes): JSON escaping can double a 50 M-character trace. */
  maxTraceCallBodyBytes: 128 * MIB,
  /** Longest the request line and headers may take to arrive (ms): a slow sender is cut off. */
  headersTimeoutMs: 30_000,
  /** Longest a whole request, body included, may take to arrive (ms). */
  requestTimeoutMs: 300_000,
  /** An idle kept-alive connection is closed after this long (ms). */
  keepAliveTimeoutMs: 5_000,
  /** Largest request line plus headers (bytes); more is answered 431 by Node itself. */
  maxHeaderBytes: 16 * KIB,
} as const;

/** The largest values the service contract accepts from a client (zod bounds derive from these). */
export const INPUT_LIMITS = {
  /** One chat message (characters); longer ones are refused by the contract. */
  maxMessageChars: 200_000,
  /** A conversation's system prompt (characters). */
  maxSystemPromptChars: 20_000,
  /** Messages in one imported conversation. */
  maxImportedMessages: 100_000,
  /** The text of one `traces.import` call (characters); larger traces use the streamed upload. */
  maxTraceTextChars: 50_000_000,
  /** A file name sent with an import (characters). */
  maxFileNameChars: 500,
} as const;

/**
 * What a JSON text may cost to parse, counted before it is parsed (json-work.ts): how deep it
 * nests and how many items (array elements, object members) it holds. Bytes alone do not bound
 * the work: 50 MB nested 25M deep parsed for seconds and kept a GB.
 */
export const JSON_WORK_LIMITS = {
  /**
   * A model folder's JSON files (config, tokenizer): tokenizers nest under 10 deep, and the
   * largest real ones (262k-token vocabularies with their merges) hold about 2 M items.
   */
  modelFile: { maxBytes: 64 * MIB, maxDepth: 64, maxItems: 8_000_000 },
  /**
   * An `/api/call/…` or `/v1/…` body: no request nests 10 deep, and a chat the default 4,096-token
   * limit can hold is ~13k items (three per message). Counted before parsing, so a 1 MiB body of
   * 30,000 one-character messages (~90k items: ~0.1 s of parsing and validation per request on
   * the serving thread) is refused after a third of its bytes are scanned.
   */
  requestBody: { maxDepth: 64, maxItems: 32_768 },
  /**
   * A conversation file given to `chat.import` (its text, up to maxTraceTextChars): an export nests
   * under 10 deep. Items are left to the character bound (every item takes a character at least),
   * so no real export is refused; the depth is what a small file can abuse (1 MB nested 500k deep
   * parsed for ~0.5 s on the serving thread).
   */
  conversationFile: { maxDepth: 64, maxItems: INPUT_LIMITS.maxTraceTextChars },
} as const;

/** Pacing and backlog of one `/api/events` stream. */
export const EVENT_STREAM_LIMITS = {
  /** Minimum time between two messages: events arriving in between travel in one batch (ms). */
  flushIntervalMs: 50,
  /** A comment line this often keeps proxies and idle sockets from closing the stream (ms). */
  keepAliveMs: 15_000,
  /** A client this far behind is cut off (it reconnects) rather than buffered without end. */
  maxBufferedEvents: 50_000,
  /**
   * Bytes written to a client that its socket has not taken yet (beyond what the kernel buffers):
   * past this it is not reading, and it is cut off, so 50 clients that never read hold 50 MiB at
   * most instead of growing without end. A browser that reads never comes near it.
   */
  maxUnsentBytes: 1 * MIB,
} as const;

/**
 * Trace import (the Traces view, `POST /api/traces/import`, `npm run profile`). The value
 * bounds are wide enough for traces from any engine, never a local model's context: a line
 * outside them is rejected with the field and the bound, never truncated.
 */
export const TRACE_LIMITS = {
  /** Largest trace file or upload (bytes). */
  maxFileBytes: 128 * MIB,
  /** Longest line (characters): our own timelines carry every inter-token gap. */
  maxLineChars: 16 * MIB,
  /** Most non-blank lines in one import (each becomes a timeline of about 1.5 KB in memory). */
  maxLines: 500_000,
  /** Largest prompt a record may claim (tokens). */
  maxPromptTokens: 10_000_000,
  /** Largest output a record may claim (tokens). */
  maxOutputTokens: 1_000_000,
  /** Longest request id (characters). */
  maxIdChars: 1_000,
  /** Longest request a record may span, first stamp to last (ms). */
  maxSpanMs: DAY_MS,
  /**
   * Most inter-token gaps one import may bring (its records' token counts): each becomes a stored
   * value at commit. In memory before then they are aggregated (trace/gap-pool.ts).
   */
  maxTotalGaps: 20_000_000,
  /** Rejected lines listed one by one; beyond this they are only counted. */
  maxListedRejections: 1_000,
  /** Timelines per message from the import worker (each message is one short main-thread turn). */
  batchSize: 500,
  /**
   * Inter-token gaps per message from the import worker (≈ 8 MB): a batch ends at this many even
   * with fewer than batchSize timelines, since one 300-character record may claim a million tokens.
   */
  batchGaps: 1_000_000,
  /** The import worker's heap (MB): a file that still outgrows it fails that import, not the app. */
  workerHeapMb: 3_072,
  /**
   * Bytes of trace files imported at once, across every import of the app (a worker stages about
   * three bytes per character of its file; staged-import.ts): one largest file, or several
   * smaller ones side by side. Four 127 MB uploads at once peaked at 5 GB of RSS without it.
   */
  maxBytesInFlight: 128 * MIB,
  /** Imports that may wait for room; one more is refused at once (HTTP 429) before it is read. */
  maxImportsWaiting: 4,
  /** Characters per message when a trace already in memory is handed to the import worker. */
  sliceChars: 1_048_576,
} as const;

/**
 * Prompts: a prompt is bounded by characters before any tokenizer sees it (a token never
 * covers more than `maxCharsPerToken` characters of text in any vocabulary we load), and a
 * long one is tokenized off the serving thread.
 */
export const PROMPT_LIMITS = {
  /** Characters one token may stand for, at most: prompts over maxPromptTokens × this are refused unread. */
  maxCharsPerToken: 32,
  /** Text up to this many characters is tokenized on the serving thread (well under a millisecond per KB). */
  inlineTokenizeChars: 4_096,
} as const;

/** The prompt's character bound for a token limit: beyond it, no tokenizer could fit the limit. */
export function maxPromptChars(maxPromptTokens: number): number {
  return maxPromptTokens * PROMPT_LIMITS.maxCharsPerToken;
}

/** The history writer: how much waits in memory and how it retries a busy or full disk. */
export const HISTORY_LIMITS = {
  /** Items held in memory while the database is busy or full; beyond this new items are refused and counted. */
  maxPending: 200_000,
  /** Items per transaction. */
  maxBatch: 1_000,
  /** Longest an item waits before a flush when traffic is light (ms). */
  flushIntervalMs: 200,
  /** First retry after SQLITE_BUSY (ms); doubles up to maxBusyRetryMs. */
  busyRetryMs: 50,
  maxBusyRetryMs: 1_000,
  /** Retry after a full disk (ms): space may be freed at any time. */
  fullRetryMs: 5_000,
  /** Lock wait while opening and migrating (ms): startup, not serving. Serving never waits (0). */
  openBusyTimeoutMs: 2_000,
  /** Lock wait for the last flush at shutdown (ms). */
  closeBusyTimeoutMs: 5_000,
} as const;

/**
 * What a remote engine (an endpoint the user added) may send back, and how long it may stay
 * silent mid-answer. Whatever a server sends, one answer holds at most one event's characters
 * unsplit and its answer's text; the first-byte limit is a runtime setting (remoteFirstByteMs).
 */
export const REMOTE_LIMITS = {
  /** Longest stream line or event (characters): past it the answer fails as malformed, unread. */
  maxEventChars: 1 * MIB,
  /** Bytes of an HTTP error body read for its message; the rest is never read. */
  maxErrorBodyBytes: 64 * KIB,
  /** Largest `/models` or `/metrics` body (bytes): lists of thousands of models fit in far less. */
  maxListBodyBytes: 4 * MIB,
  /**
   * What a `/models` list may cost to parse, counted before parsing: a model is 5 to 30 items
   * (vLLM's permissions, OpenRouter's pricing), so a thousand models fit; 145k tiny ones (4 MiB)
   * took ~0.3 s of parsing and validation on the main thread.
   */
  modelListWork: { maxDepth: 32, maxItems: 32_768 },
  /**
   * What one stream event may cost to parse, counted before parsing when it is longer than
   * 4 KiB: real events (text, usage, timings, vLLM's metrics) hold tens of items; a 1 MiB event
   * nested 500k deep or of 500k items would hold the main thread for tenths of a second.
   */
  eventWork: { maxDepth: 32, maxItems: 4_096 },
  /** Characters one streamed token may carry: the answer is cut at maxTokens × this. */
  maxCharsPerToken: PROMPT_LIMITS.maxCharsPerToken,
  /**
   * Characters per event on average over a stream, comments included (an event with text,
   * usage, timings or logprobs is well under it): a stream past it for its events fails.
   */
  maxCharsPerEvent: 4 * KIB,
  /** Events beyond the token budget (role, finish, usage, timings, [DONE]) before the stream is cut. */
  maxEventsBeyondTokens: 64,
  /** Longest silence between two events once the first arrived (ms); then the answer fails. */
  idleTimeoutMs: 60_000,
  /**
   * Longest a request may take to reach a connected socket, TCP and TLS done (ms); then the answer
   * fails naming this limit. Node's fetch has its own 10 s, so this stays under it; a reachable
   * server takes well under a second, and 5 s still rides out two lost SYNs (retried at 1 s and 3 s).
   */
  connectTimeoutMs: 5_000,
} as const;

/**
 * What the Hugging Face hub (or a server at FF_HUB_URL) may send back when a model is fetched,
 * and how long a download may stall. A repository's listing is read bounded and measured before
 * it is parsed; the file itself streams to disk and is never held in memory.
 */
export const HUB_LIMITS = {
  /** Largest `/api/models/{repo}` body (bytes): a repository of 2,000 files answers ~1 MiB. */
  maxRepoInfoBytes: 8 * MIB,
  /** What that listing may cost to parse: about 10 items per file, so 20,000 files fit. */
  repoInfoWork: { maxDepth: 16, maxItems: 200_000 },
  /** Longest a listing request may take (ms). */
  repoInfoTimeoutMs: 30_000,
  /** Longest a download may go without a byte (ms); then it stops, its `.part` kept to resume. */
  idleTimeoutMs: 60_000,
  /** Times a dropped connection is resumed (HTTP Range) before the download fails. */
  numResumes: 3,
  /** Room left on the disk after a download (bytes): a download that would leave less is refused. */
  minFreeBytesAfter: 512 * MIB,
  /** Least time between two progress events of one download (ms). */
  progressEveryMs: 250,
} as const;
