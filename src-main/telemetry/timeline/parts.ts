/**
 * The parts of server TTFT, in life order. Each is measured from its own stamps; with the time
 * no part explains (`unattributedMs`, ≥ 0 and small) they sum to TTFT. A gap is reported as
 * unattributed, never folded into a neighbour.
 */
export const TTFT_PARTS = [
  'inbox',
  'route',
  'slotLoad',
  'queue',
  'requeue',
  'lostPrefill',
  'activation',
  'contextLookup',
  'prefill',
  'emit',
] as const;
export type TtftPart = (typeof TTFT_PARTS)[number];
