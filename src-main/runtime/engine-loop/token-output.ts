import type { Clock } from '../../telemetry/clock';
import type { FinishReason } from '../../telemetry/timeline/schema';
import type { SampledToken } from '../slot-worker/protocol';
import type { Scheduler } from '../scheduler/scheduler';
import type { Sequence } from '../scheduler/sequence';

/**
 * Hands the token the worker sampled to the scheduler (which appends it to the sequence), flushes
 * the text it released to the sink (the first flush ends TTFT) and says whether the sequence is
 * done and why.
 */
export function emitToken(
  scheduler: Scheduler,
  seq: Sequence,
  sampled: SampledToken,
  clock: Clock,
): FinishReason | null {
  const { emit, finishReason } = scheduler.appendToken(seq, sampled.tokenId, sampled.rngState);
  seq.sink.onChunk({ requestId: seq.seqId, text: emit, tokenIds: [sampled.tokenId] });
  seq.recorder.tokensFlushed(1, clock.now());
  return finishReason;
}
