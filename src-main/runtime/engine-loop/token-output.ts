import type { Clock } from '../../telemetry/clock';
import type { FinishReason } from '../../telemetry/timeline/schema';
import type { SampledToken } from '../slot-worker/protocol';
import type { Scheduler } from '../scheduler/scheduler';
import type { Sequence } from '../scheduler/sequence';

/**
 * Hands the token the worker sampled to the scheduler (which appends it to the sequence), flushes
 * the text it released to the sink (the first flush ends TTFT) and says whether the sequence is
 * done and why. `producedAt`: the worker's stamp of the forward that produced it (its ITL's source).
 */
export function emitToken(
  scheduler: Scheduler,
  seq: Sequence,
  sampled: SampledToken,
  clock: Clock,
  producedAt: number,
): FinishReason | null {
  const { emit, finishReason } = scheduler.appendToken(seq, sampled.tokenId, sampled.rngState);
  seq.recorder.tokenProduced(producedAt);
  seq.sink.onChunk({ requestId: seq.seqId, text: emit, tokenIds: [sampled.tokenId] });
  seq.recorder.tokensFlushed(1, clock.now());
  return finishReason;
}
