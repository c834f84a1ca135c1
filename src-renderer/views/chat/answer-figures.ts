import { transportMs } from '../../../src-main/telemetry/timeline/derive';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';

/** The figures printed under an answer, derived from its timeline and client stamp. */
export interface AnswerFigures {
  serverTtftMs: number | null;
  clientTtftMs: number | null;
  /** client − server: what IPC/HTTP and the renderer added (durations, never raw stamps). */
  transportMs: number | null;
  /** Decode speed after the first token. */
  tokensPerS: number | null;
}

/** Figures for one finished answer. */
export function answerFigures(timeline: Timeline, clientTtftMs: number | null): AnswerFigures {
  const serverTtftMs = timeline.ttftMs;
  const decodeMs = serverTtftMs === null ? 0 : timeline.e2eMs - serverTtftMs;
  const numDecoded = timeline.numOutputTokens - 1;
  return {
    serverTtftMs,
    clientTtftMs,
    transportMs: transportMs(clientTtftMs, serverTtftMs),
    tokensPerS: numDecoded > 0 && decodeMs > 0 ? (numDecoded * 1000) / decodeMs : null,
  };
}
