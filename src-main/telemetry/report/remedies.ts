import type { TtftPart } from '../timeline/schema';

/** A TTFT part, or the time before the first token that no stamp explains. */
export type TtftPhase = TtftPart | 'unattributed';

/**
 * A phase of a request's whole life: the TTFT phases, `decode` (e2e − TTFT: every token after
 * the first) and `transport` (client TTFT − server TTFT, where the client reported it).
 */
export type E2ePhase = TtftPhase | 'decode' | 'transport';

/**
 * The next test to run when a phase dominates (seed 003's remedies, restated for our parts):
 * each names an experiment that moves that phase and no other. Shown in both modes, so each
 * says it in plain words first, with the engine's term in parentheses after them.
 */
export const NEXT_TEST: Readonly<Record<E2ePhase, string>> = {
  inbox:
    'find what keeps the app busy between a request arriving and being picked up (main-thread stalls: long steps, saving to the database, big JSON) and hand new requests over between steps (forward passes)',
  route:
    'time how long preparing a request takes (requirement resolution: finding the model, hashing its revision) and keep what comes out the same every time (a cache)',
  slotLoad:
    'keep the model loaded (a longer keep-alive, or load it at start or when a conversation opens: prefetch) and see in Slots how long reading its file and preparing it took (slot events: weight read, session build)',
  queue:
    'replay the same requests with more answers at once or more memory for conversations (seats, K/V budget), and limit how many may wait (queue limit, deadlines): the wait for a turn should shrink while reading the prompt stays the same (prefill)',
  requeue:
    'leave more memory for conversations free (K/V budget headroom) or take fewer long prompts at once; answers paused before their first word (preempted) go back to wait',
  lostPrefill:
    'stop pausing answers while they read their prompt (preempt only between chunks, prefer answers that already started) or keep what a paused answer had already read (its context pages)',
  activation:
    'time how long the model stays busy with one step and the hand-over to its worker (slot lock hold, worker round trip); look for a long step holding the model while others wait',
  contextLookup:
    'time finding and putting together the remembered part of the prompt (page lookup, K/V assembly); check whether reusing it costs more than it saves (page size)',
  prefill:
    'send fewer new words to read: reuse remembered context and trim the history (uncached prompt tokens, context pages), read long prompts in pieces (chunked prefill), or try lighter weights or other hardware on the same prompts (precision, provider)',
  emit: 'time choosing and writing out the first word (sampling, detokenizing) and check that it is sent at once, not held back (transport flush, buffering)',
  unattributed:
    'add a measuring point (a stamp) on the code between the recorded steps: time nothing explains cannot be sped up, only found',
  decode:
    "measure each word's step against how many answer at once and how long the answers are (ITL × tokens, batch size); a faster step or a shorter answer moves it, waiting and reading the prompt will not (queue, prefill)",
  transport:
    "look at how the answer travels to the window (IPC/HTTP delivery): whether pieces are sent at once (flushing, SSE or proxy buffering), their encoding (serialisation) and the page's work before the first word shows (first paint)",
};
