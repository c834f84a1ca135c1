import type { TtftPart } from '../timeline/schema';

/**
 * Where a figure's clock starts and stops. `client`: the client's send → what it received
 * (seed 003's boundary); `server`: arrival at this process → what it flushed.
 */
export const BOUNDARY_KINDS = ['client', 'server'] as const;
/** See BOUNDARY_KINDS. */
export type Boundary = (typeof BOUNDARY_KINDS)[number];

/**
 * Seed 003's seven phases of one request at the client boundary, in life order. The first six
 * sum to client TTFT; `stream` is the first → last token the client received.
 */
export const SEED_PHASES = [
  'network_in',
  'gateway',
  'queue',
  'prefill',
  'first_decode',
  'network_to_first',
  'stream',
] as const;
/** See SEED_PHASES. */
export type SeedPhase = (typeof SEED_PHASES)[number];
/**
 * The phases between the server's arrival stamp and its first token, each with stamps of its
 * own in a seed record (the ones NESTED_PARTS fills with our parts), in order.
 */
export const SEED_SERVER_PHASES = [
  'gateway',
  'queue',
  'prefill',
  'first_decode',
] as const satisfies readonly SeedPhase[];
/** See SEED_SERVER_PHASES. */
export type SeedServerPhase = (typeof SEED_SERVER_PHASES)[number];
/** The phases before the first token (the dominant TTFT phase is chosen among these). */
export const SEED_TTFT_PHASES: readonly SeedPhase[] = SEED_PHASES.slice(0, 6);

/**
 * The server's finer parts inside each seed phase: gateway is request preparation up to the
 * queue (inbox, route, slot load), queue is every wait for a seat and the executor (requeue
 * and prefill lost to preemption included), prefill builds the prompt's K/V (context lookup
 * included), first_decode is sampling, detokenizing and flushing token one. The network
 * phases and the stream happen outside the server's parts. Unattributed server time belongs
 * to no phase and is reported on its own.
 */
export const NESTED_PARTS: Readonly<Record<SeedPhase, readonly TtftPart[]>> = {
  network_in: [],
  gateway: ['inbox', 'route', 'slotLoad'],
  queue: ['queue', 'requeue', 'lostPrefill', 'activation'],
  prefill: ['contextLookup', 'prefill'],
  first_decode: ['emit'],
  network_to_first: [],
  stream: [],
};

/**
 * The first test to run when a phase dominates (seed 003's remedies, in our words): plain words
 * first, the term in parentheses after them, as NEXT_TEST says its own.
 */
export const SEED_REMEDIES: Readonly<Record<SeedPhase, string>> = {
  network_in:
    'bring the client closer to First Frame, reuse connections and send less with each request (network, payload size)',
  gateway:
    'look at what happens before the wait for a turn: the app picking the request up, preparing the prompt and splitting it into tokens (tokenizing), and loading the model (behind a gateway, also its authentication and rate limits)',
  queue:
    'limit how many may wait (queue limit, deadlines), add room where it runs short (seats, K/V budget), or change the order of turns (scheduling)',
  prefill:
    'send fewer new words to read (uncached prompt tokens: reuse context pages, shorter history), make each step faster (the forward pass), or read long prompts in pieces (chunks)',
  first_decode:
    "look at the first word's step: choosing it (sampling), writing it out (detokenizing) and handing it on (transport)",
  network_to_first:
    'send each piece of the answer as soon as it exists (flush streamed chunks) and look for a proxy or the client holding pieces back (buffering)',
  stream:
    "make each word come faster (decode speed: batch size, cache locality, precision) or cap the answer's length (max tokens)",
};

/** Nearest-rank, stated beside every percentile (seed 003 interpolates: it may differ by one rank). */
export const PERCENTILE_METHOD =
  'nearest rank: the value at rank ⌈p·n⌉ of the sorted values, always a value some request had (seed 003 interpolates between ranks; the two may differ by one rank)';
