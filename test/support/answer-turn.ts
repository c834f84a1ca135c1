import type { GenerationOutcome } from '../../src-main/runtime/scheduler/request';
import type { MessageMeta } from '../../src-main/service/contract/chat-schemas';
import type { FinishReason } from '../../src-main/telemetry/timeline/schema';
import { syntheticTimelines } from '../../src-main/telemetry/synthetic/workload';

/** The meta a chat turn stores with its answer before anything is known of its ending. */
export const TURN_META: MessageMeta = {
  forecast: null,
  numDroppedMessages: 0,
  importedTimeline: null,
  errorMessage: null,
  isCheckpoint: false,
};

/** An outcome as an engine hands it over: this text, ending, and error message. */
export function outcomeOf(
  requestId: string,
  text: string,
  finishReason: FinishReason,
  errorMessage: string | null = null,
): GenerationOutcome {
  const [template] = syntheticTimelines(1, { seed: 3 });
  return {
    requestId,
    text,
    timeline: { ...template!, requestId, finishReason, errorMessage },
    errorMessage,
    errorCode: errorMessage === null ? null : 'unavailable',
  };
}
