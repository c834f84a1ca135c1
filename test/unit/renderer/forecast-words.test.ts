import { describe, expect, it } from 'vitest';
import type { SendForecast } from '../../../src-main/service/contract/chat-schemas';
import { simpleForecast } from '../../../src-renderer/views/chat/forecast-words';
import { BUNDLED_MODEL_REF } from '../../support/models';

const FORECAST: SendForecast = {
  modelId: BUNDLED_MODEL_REF,
  numPromptTokens: 120,
  promptLimit: 2047,
  contextTokens: 2048,
  numCachedTokens: 96,
  numCachedPages: 6,
  numDiskPages: 0,
  numDiskBytes: 0,
  estDiskReadMs: null,
  numNewTokens: 24,
  pageSize: 16,
  numDroppedMessages: 0,
  isSlotCold: false,
  estTtftMs: 18.04,
  estWaitMs: null,
  numAhead: 0,
  refusal: null,
  remote: null,
};

describe("the Simple composer's forecast in words", () => {
  it('says when the first word should come and what is remembered, without pages or TTFT', () => {
    const line = simpleForecast(FORECAST);
    expect(line).toBe('First word in about 18.0 ms: 24 new tokens to read, 96 remembered from before.');
    expect(line).not.toMatch(/page|prefill|TTFT/);
  });

  it('names the waits the estimate includes: loading the model, answers queued ahead, the step in flight', () => {
    expect(simpleForecast({ ...FORECAST, isSlotCold: true, estWaitMs: 3.2, numAhead: 2 })).toBe(
      'First word in about 18.0 ms: 24 new tokens to read, 96 remembered from before, loading the model first and about 3.2 ms behind 2 queued answers.',
    );
    expect(simpleForecast({ ...FORECAST, numCachedTokens: 0, numNewTokens: 120, estWaitMs: 1.5 })).toBe(
      'First word in about 18.0 ms: 120 tokens to read, about 1.5 ms for the answer being written now.',
    );
  });

  it('before any measurement, and for a remote model, says what it does not know', () => {
    expect(simpleForecast({ ...FORECAST, estTtftMs: null })).toBe(
      'First word: known after the first answer (24 new tokens to read, 96 remembered from before).',
    );
    const remote = { ...FORECAST, remote: { note: 'the server fits the context' } };
    expect(simpleForecast({ ...remote, estTtftMs: null })).toBe(
      'First word: unknown until this endpoint has answered once.',
    );
    expect(simpleForecast({ ...remote, estTtftMs: 240 })).toMatch(/^First word in about 240 ms \(the middle/);
  });

  it('says how much remembered context is read back from disk, and how long that should take once measured', () => {
    const fromDisk = { ...FORECAST, numDiskPages: 4, numDiskBytes: 3 * 1048576 };
    expect(simpleForecast({ ...fromDisk, estDiskReadMs: 12.5 })).toBe(
      'First word in about 18.0 ms: 24 new tokens to read, 96 remembered from before, reading 3.0 MiB of remembered context from disk (about 12.5 ms).',
    );
    expect(simpleForecast({ ...fromDisk, estDiskReadMs: null })).toMatch(
      /reading 3\.0 MiB of remembered context from disk\.$/,
    );
  });
});
