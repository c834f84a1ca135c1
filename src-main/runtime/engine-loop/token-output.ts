import type { Clock } from '../../telemetry/clock';
import type { FinishReason } from '../../telemetry/timeline';
import type { SampledToken } from '../engine/protocol';
import type { Sequence } from '../scheduler';

/**
 * Takes the token the worker sampled, detokenizes it, flushes the chunk to the sink (the first
 * flush ends TTFT) and says whether the sequence is done and why.
 */
export function emitToken(seq: Sequence, sampled: SampledToken, clock: Clock): FinishReason | null {
  const { tokenId } = sampled;
  seq.sampler.rngState = sampled.rngState;
  seq.outputIds.push(tokenId);
  const isEos = !seq.request.ignoreEos && seq.slot.model.folder.eosIds.includes(tokenId);
  const delta = isEos ? '' : seq.detokenizer.push(tokenId);
  const { emit, isStopped } = seq.stopMatcher.push(delta);
  seq.text += emit;
  seq.hasHitStopString = isStopped;
  seq.sink.onChunk({ requestId: seq.seqId, text: emit, tokenIds: [tokenId] });
  seq.recorder.tokensFlushed(1, clock.now());
  return finishReasonOf(seq, isEos || isStopped);
}

/** Why the sequence must stop after its newest token, or null to go on. */
function finishReasonOf(seq: Sequence, isStop: boolean): FinishReason | null {
  if (isStop) return 'stop';
  if (seq.outputIds.length >= seq.maxTokens) return 'length';
  if (seq.promptIds.length + seq.outputIds.length >= seq.slot.model.folder.shape.maxPositions)
    return 'length';
  return null;
}

/** Flushes text held back for a possible stop string once the stream ends without one. */
export function flushHeldText(seq: Sequence): void {
  if (seq.hasHitStopString) return;
  const rest = seq.stopMatcher.flush();
  if (rest.length === 0) return;
  seq.text += rest;
  seq.sink.onChunk({ requestId: seq.seqId, text: rest, tokenIds: [] });
}
