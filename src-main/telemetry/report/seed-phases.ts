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

/** The first test to run when a phase dominates (seed 003's remedies, in our words). */
export const SEED_REMEDIES: Readonly<Record<SeedPhase, string>> = {
  network_in: 'move the client closer to the endpoint, reuse connections, and check the request payload size',
  gateway:
    'look at what happens before the queue: the engine picking the request up, preparing and tokenizing the prompt, and loading the model (behind a gateway, also its authentication and rate limits)',
  queue:
    'shape admission (queue limit, deadlines), add capacity where the phase needs it (seats, K/V budget), or change scheduling',
  prefill:
    'cut uncached prompt tokens (context pages, shorter history), speed up the forward, or split prompt processing into chunks',
  first_decode:
    'inspect the first decode step: sampling, detokenizing and handing the first chunk to the transport',
  network_to_first: 'flush streamed chunks as they are produced and look for proxy or client buffering',
  stream: 'improve decode speed (batch size, cache locality, precision) or bound the output length',
};

/** Nearest-rank, stated beside every percentile (seed 003 interpolates: it may differ by one rank). */
export const PERCENTILE_METHOD =
  'nearest rank: the value at rank ⌈p·n⌉ of the sorted values, always a value some request had (seed 003 interpolates between ranks; the two may differ by one rank)';
