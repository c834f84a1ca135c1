import type { Clock } from '../../telemetry/clock';
import type { FinishReason } from '../../telemetry/timeline';
import { sampleToken } from '../sampling';
import type { Sequence } from './sequence';

/**
 * Samples the next token from logits, detokenizes it, flushes the chunk to the sink (the
 * first flush ends TTFT) and says whether the sequence is done and why.
 */
export function emitToken(seq: Sequence, logits: Float32Array, clock: Clock): FinishReason | null {
  const { vocabSize } = seq.slot.model.folder.tokenizer;
  const usable = logits.length > vocabSize ? logits.subarray(0, vocabSize) : logits;
  const tokenId = sampleToken(usable, seq.sampling, seq.random);
  seq.outputIds.push(tokenId);
  const isEos = !seq.request.ignoreEos && seq.slot.model.folder.eosIds.includes(tokenId);
  const delta = isEos ? '' : seq.detokenizer.push(tokenId);
  const { emit, isStopped } = seq.stopMatcher.push(delta);
  seq.text += emit;
  seq.hasHitStopString = isStopped;
  seq.sink.onChunk({ requestId: seq.seqId, text: emit, tokenIds: [tokenId] });
  seq.recorder.tokensFlushed(1, clock.now());
  const reason = finishReasonOf(seq, isEos || isStopped);
  seq.pendingTokenId = reason ? null : tokenId;
  return reason;
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
