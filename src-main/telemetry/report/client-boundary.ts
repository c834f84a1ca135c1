import { PART_TOLERANCE_MS } from '../timeline/check';
import { distributionOfNonNegative } from './bucket-quantiles';
import { boundaryPhases } from './boundary-phases';
import type { BoundaryPhases, ClientRow } from './boundary-phases';
import type { ReportColumns } from './columns';
import { finishCode } from './columns';
import type { Distribution } from './distribution';

/** Requests whose client stamps contradict the server's, listed (at most this many ids). */
const MAX_LISTED = 20;

/** What a broken measurement is, stated beside the count. */
export const BROKEN_RULE =
  'a network duration below zero (client send after server arrival, or the client receiving its first token before the server sent it): clocks not aligned or stamps wrong, never a fast network';

/** Requests whose client-side figures cannot be true; their network split is left out of the phase means. */
export interface BrokenMeasurements {
  count: number;
  requestIds: string[];
  rule: string;
}

/**
 * The client boundary (seed 003's): totals from the client's own clock and seed 003's seven
 * phases. TTFT and the round-trip transport cover every request with a first token and a
 * client TTFT; ITL is each request's stream ÷ (output tokens − 1), seed 003's per-request
 * figure (the client's per-token stamps are not kept); E2E counts completed responses only
 * (stop or length). The phases need the network split (stamps on one aligned clock) and the
 * client E2E, and leave broken measurements out.
 */
export interface ClientBoundary {
  numWithClientTtft: number;
  ttft: Distribution;
  itl: Distribution;
  e2e: Distribution;
  /** Client TTFT − server TTFT of the same request: both network legs together. */
  transport: Distribution;
  /** Requests whose inbound and return network legs are known apart. */
  numSplit: number;
  broken: BrokenMeasurements;
  /** Null when no request has the full set of client stamps (see the boundary of the phases). */
  phases: BoundaryPhases | null;
}

const STOP = finishCode('stop');
const LENGTH = finishCode('length');

/** True for a response that completed (stop or length), the population of E2E percentiles. */
export function isCompletedCode(code: number): boolean {
  return code === STOP || code === LENGTH;
}

/** The client boundary of these requests, or null when none of them carries a client TTFT. */
export function clientBoundaryOf(columns: ReportColumns): ClientBoundary | null {
  const v = columns.values;
  const n = columns.numRequests;
  // Most live windows carry no client stamps at all: say so without allocating anything.
  if (!v.clientTtftMs.some((ms) => ms === ms)) return null;
  const ttft = new Float64Array(n).fill(NaN);
  const itl = new Float64Array(n).fill(NaN);
  const e2e = new Float64Array(n).fill(NaN);
  const transport = new Float64Array(n).fill(NaN);
  const rows: (ClientRow | null)[] = new Array<ClientRow | null>(n).fill(null);
  const broken: string[] = [];
  let numWithClient = 0;
  let numSplit = 0;
  for (let r = 0; r < n; r++) {
    const client = v.clientTtftMs[r]!;
    const server = v.ttftMs[r]!;
    if (Number.isNaN(client) || Number.isNaN(server)) continue;
    numWithClient++;
    ttft[r] = client;
    const clientE2e = v.clientE2eMs[r]!;
    const numTokens = v.numOutputTokens[r]!;
    if (!Number.isNaN(clientE2e) && numTokens > 1) itl[r] = (clientE2e - client) / (numTokens - 1);
    if (!Number.isNaN(clientE2e) && isCompletedCode(v.finishCode[r]!)) e2e[r] = clientE2e;
    // A remote engine's timeline is the client's own: no server TTFT here to take transport from.
    if (v.isRemote[r] === 1) continue;
    const networkIn = v.networkInMs[r]!;
    const networkToFirst = client - server - networkIn;
    const isSplit = !Number.isNaN(networkIn);
    if (
      client - server < -PART_TOLERANCE_MS ||
      (isSplit && Math.min(networkIn, networkToFirst) < -PART_TOLERANCE_MS)
    ) {
      broken.push(columns.requestIds[r] ?? `#${r}`);
      continue;
    }
    transport[r] = client - server;
    if (!isSplit) continue;
    numSplit++;
    if (!Number.isNaN(clientE2e))
      rows[r] = {
        networkInMs: networkIn,
        networkToFirstMs: networkToFirst,
        ttftMs: client,
        streamMs: clientE2e - client,
      };
  }
  if (numWithClient === 0) return null;
  const phases = boundaryPhases(columns, 'client', (r) => rows[r] ?? null);
  return {
    numWithClientTtft: numWithClient,
    ttft: distributionOfNonNegative(ttft),
    itl: distributionOfNonNegative(itl),
    e2e: distributionOfNonNegative(e2e),
    transport: distributionOfNonNegative(transport),
    numSplit,
    broken: { count: broken.length, requestIds: broken.slice(0, MAX_LISTED), rule: BROKEN_RULE },
    phases: phases.numRequests === 0 ? null : phases,
  };
}
