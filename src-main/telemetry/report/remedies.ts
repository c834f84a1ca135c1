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
 * each names an experiment that moves that phase and no other.
 */
export const NEXT_TEST: Readonly<Record<E2ePhase, string>> = {
  inbox:
    'measure main-thread stalls between arrivals and the scheduler (long synchronous steps, store flushes, big JSON) and hand new requests over between forward passes',
  route:
    'profile requirement resolution and slot choice (model lookup, revision hashing) and cache what resolves the same way',
  slotLoad:
    'keep the model resident (longer keep-alive, prefetch at start or when a conversation opens) and read the slot events for weight-read and session-build time',
  queue:
    'replay the same arrivals with more seats or a larger K/V budget, and shape admission (queue limit, deadlines): the queue should move while prefill stays put',
  requeue:
    'give the K/V budget headroom or admit fewer long prompts at once; preemptions before the first token send requests back to wait',
  lostPrefill:
    'stop preempting mid-prefill (preempt at chunk boundaries, prefer sequences that already spoke) or keep the pages a preempted prefill built',
  activation:
    'measure slot lock hold times and the worker hand-off round trip; look for a long step holding the slot while others wait',
  contextLookup:
    'measure page lookup and K/V assembly; check the page size and whether hits copy more than they save',
  prefill:
    'cut uncached prompt tokens (reuse context pages, trim history), chunk long prefills, or test a faster precision or provider on the same prompts',
  emit: 'profile sampling and detokenizing the first token, and check the transport flushes the first chunk without buffering',
  unattributed:
    'add a stamp on the code path between the recorded states: time no stamp explains cannot be optimised, only found',
  decode:
    'measure the per-token step against batch size and output length (ITL × tokens); a faster decode step or a shorter answer moves it, queue and prefill work will not',
  transport:
    'inspect IPC/HTTP delivery: chunk flushing, proxy or SSE buffering, serialisation and renderer work before the first paint',
};
