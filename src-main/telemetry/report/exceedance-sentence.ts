import type { ExceedanceGroup } from './exceedance';
import { PHASE_NAMES, TTFT_PHASES } from './phases';
import type { Boundary } from './seed-phases';

/** A trait is worth naming when the slow group's share differs from the rest's by this much. */
export const NOTABLE_SHARE_GAP = 0.2;

const pct = (share: number): string => `${Math.round(share * 100)}%`;
const ms = (value: number): string => `${value.toFixed(1)} ms`;

/**
 * One sentence saying what the requests above the threshold share: where their extra time went
 * (the part whose mean grew most) and the traits (cold slot, prompt band, cache, model) whose
 * share differs from the rest by at least NOTABLE_SHARE_GAP.
 */
export function describeExceedance(
  thresholdMs: number,
  slow: ExceedanceGroup,
  rest: ExceedanceGroup,
  boundary: Boundary = 'server',
): string {
  const name = `p95 ${boundary} TTFT`;
  if (slow.numRequests === 0)
    return `No request is above ${name} (${ms(thresholdMs)}): the slowest 5% are tied at the threshold or the set is under 20 requests.`;
  const head = `${slow.numRequests} request(s) above ${name} (${ms(thresholdMs)}) against ${rest.numRequests} at or below`;
  const traits = [extraTime(slow, rest), ...notableTraits(slow, rest)].filter((s): s is string => s !== null);
  if (traits.length === 0)
    return `${head}: they share no part, slot state, prompt band, cache state or model more than the rest.`;
  return `${head}: ${traits.join('; ')}.`;
}

/** The part (or, at the client boundary, the network) whose mean grew most among the slow requests. */
function extraTime(slow: ExceedanceGroup, rest: ExceedanceGroup): string | null {
  const candidates: [string, number, number][] = TTFT_PHASES.map((phase) => [
    PHASE_NAMES[phase],
    slow.partMeansMs[phase] ?? 0,
    rest.partMeansMs[phase] ?? 0,
  ]);
  if (slow.transportMeanMs !== null && rest.transportMeanMs !== null)
    candidates.push(['network (client TTFT − server TTFT)', slow.transportMeanMs, rest.transportMeanMs]);
  let best: [string, number, number] | null = null;
  for (const c of candidates) if (c[1] - c[2] > (best ? best[1] - best[2] : 0)) best = c;
  if (best === null) return null;
  return `most of their extra time is ${best[0]} (mean ${ms(best[1])} vs ${ms(best[2])})`;
}

function notableTraits(slow: ExceedanceGroup, rest: ExceedanceGroup): (string | null)[] {
  const cold = shareTrait(
    slow.coldSlotShare,
    rest.coldSlotShare,
    (s, r) => `${pct(s)} found their slot cold vs ${pct(r)}`,
  );
  const cached = shareTrait(
    slow.cachedTokenShare,
    rest.cachedTokenShare,
    (s, r) => `cache served ${pct(s)} of their prompt tokens vs ${pct(r)}`,
  );
  const band = labelTrait(
    slow.promptBandShares,
    rest.promptBandShares,
    (label, s, r) => `${pct(s)} had prompts of ${label} vs ${pct(r)}`,
  );
  const model = labelTrait(
    slow.modelShares,
    rest.modelShares,
    (label, s, r) => `${pct(s)} ran on ${label} vs ${pct(r)}`,
  );
  return [cold, cached, band, model];
}

function shareTrait(
  slow: number | null,
  rest: number | null,
  say: (slow: number, rest: number) => string,
): string | null {
  if (slow === null || rest === null || Math.abs(slow - rest) < NOTABLE_SHARE_GAP) return null;
  return say(slow, rest);
}

/** The label over-represented most among the slow requests, when it clears the gap. */
function labelTrait(
  slow: Record<string, number>,
  rest: Record<string, number>,
  say: (label: string, slow: number, rest: number) => string,
): string | null {
  let best: string | null = null;
  let bestGap = NOTABLE_SHARE_GAP - Number.EPSILON;
  for (const [label, share] of Object.entries(slow)) {
    const gap = share - (rest[label] ?? 0);
    if (gap >= bestGap) {
      best = label;
      bestGap = gap;
    }
  }
  return best === null ? null : say(best, slow[best]!, rest[best] ?? 0);
}
