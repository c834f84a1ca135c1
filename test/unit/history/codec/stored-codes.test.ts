import { describe, expect, it } from 'vitest';
import { packTransitions } from '../../../../src-main/history/codec/transitions';
import { finishCode, SCALAR_FIELDS } from '../../../../src-main/telemetry/report/columns';
import { FINISH_REASONS, LIFE_STATES } from '../../../../src-main/telemetry/timeline/schema';

// Codes the history stores by position. These tables are written out by hand on purpose: a
// state, reason or field moved in its declaration would still round-trip in a test that derives
// its expectations from the same declaration, and would misread every row already stored.

describe('codes stored by position', () => {
  it('a transition stores its state as exactly these codes', () => {
    const transitions = LIFE_STATES.map((state, i) => ({ state, at: i }));
    const stored = new Float64Array(new Uint8Array(packTransitions(transitions)).buffer);
    const codes = Object.fromEntries(LIFE_STATES.map((state, i) => [state, stored[i * 3]]));
    expect(codes).toEqual({
      inbox: 0,
      route: 1,
      slotLoad: 2,
      queue: 3,
      requeue: 4,
      activation: 5,
      contextLookup: 6,
      prefill: 7,
      emit: 8,
      decode: 9,
    });
  });

  it('a packed report row stores its finish reason as exactly these codes', () => {
    expect(Object.fromEntries(FINISH_REASONS.map((reason) => [reason, finishCode(reason)]))).toEqual({
      stop: 0,
      length: 1,
      cancelled: 2,
      deadline: 3,
      rejected: 4,
      error: 5,
      // Appended: an answer's ending only, never a request's, so no row holds it; the codes above stay.
      interrupted: 6,
    });
  });

  it('a packed report row holds exactly these fields in this order (a new one is appended, never inserted)', () => {
    expect(SCALAR_FIELDS).toEqual([
      'arrivedAt',
      'finishedAt',
      'e2eMs',
      'ttftMs',
      'clientTtftMs',
      'unattributedMs',
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
      'numPromptTokens',
      'numCachedTokens',
      'numOutputTokens',
      'isColdSlot',
      'finishCode',
      'ownItlP95Ms',
      'clientE2eMs',
      'networkInMs',
      'isRemote',
    ]);
  });
});
