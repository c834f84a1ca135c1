import type { FinishReason } from '../../telemetry/timeline/schema';
import type { Sequence } from './sequence';

/** What one sampled token added to a sequence's answer: the text now safe to show, and why it stops. */
export interface AppendedToken {
  /** Text released by the detokenizer and the stop matcher ('' while a stop string may be forming). */
  emit: string;
  /** Why the sequence must stop after this token, or null to go on. */
  finishReason: FinishReason | null;
}

/**
 * Appends the token the worker sampled (with the RNG state after it) to `seq`: its output ids,
 * its text and whether a stop string ended it. Only the scheduler calls this (not exported from
 * the room), so the scheduler stays the one writer of sequence state.
 */
export function appendToken(seq: Sequence, tokenId: number, rngState: number): AppendedToken {
  seq.sampler.rngState = rngState;
  seq.outputIds.push(tokenId);
  const isEos = !seq.request.ignoreEos && seq.slot.model.folder.eosIds.includes(tokenId);
  const delta = isEos ? '' : seq.detokenizer.push(tokenId);
  const { emit, isStopped } = seq.stopMatcher.push(delta);
  seq.text += emit;
  seq.hasHitStopString = isStopped;
  return { emit, finishReason: finishReasonOf(seq, isEos || isStopped) };
}

/** Why the sequence must stop after its newest token, or null to go on. */
function finishReasonOf(seq: Sequence, isStop: boolean): FinishReason | null {
  if (isStop) return 'stop';
  if (seq.outputIds.length >= seq.maxTokens) return 'length';
  if (seq.promptIds.length + seq.outputIds.length >= seq.slot.model.folder.shape.maxPositions)
    return 'length';
  return null;
}

/**
 * Releases the text held back for a possible stop string once the answer ends without one, adding
 * it to the sequence's text; returns it ('' when nothing was held or a stop string ended it).
 */
export function releaseHeldText(seq: Sequence): string {
  if (seq.hasHitStopString) return '';
  const rest = seq.stopMatcher.flush();
  seq.text += rest;
  return rest;
}
