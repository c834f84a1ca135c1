import type { TtftPart } from '../../../telemetry/timeline/parts';
import type { ReportSource } from '../../../telemetry/timeline/remote-facts';

/**
 * What a server reported about one request, in our vocabulary: durations (ms) it measured on
 * its own clock, mapped onto our TTFT parts. Only what it reported is here; every part it
 * does not report is absent (never zero-filled), and its time stays unattributed at the
 * client boundary.
 */
export interface ServerReport {
  source: ReportSource;
  /** The parts before the first token the server reported, in life order of TTFT_PARTS. */
  parts: Partial<Record<TtftPart, number>>;
  /** The server's own TTFT (its arrival → its first token written) when it reports one. */
  ttftMs: number | null;
  /** Time inside the server's TTFT that it says no stamp explains (First Frame's `unattributed_ms`). */
  unattributedMs: number | null;
  /** First → last token on the server, when reported. */
  decodeMs: number | null;
  numPromptTokens: number | null;
  numCachedTokens: number | null;
  numOutputTokens: number | null;
  /** The fields read, as the server named them (for the docs and the sidecar). */
  fields: string[];
}

/** A report with nothing in it. */
export function emptyReport(): ServerReport {
  return {
    source: 'none',
    parts: {},
    ttftMs: null,
    unattributedMs: null,
    decodeMs: null,
    numPromptTokens: null,
    numCachedTokens: null,
    numOutputTokens: null,
    fields: [],
  };
}

/** A finite, non-negative number, or null. */
export function msOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** A whole, non-negative number, or null. */
export function countOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
