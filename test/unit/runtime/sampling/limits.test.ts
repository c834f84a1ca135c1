import { describe, expect, it } from 'vitest';
import { SAMPLING_LIMITS, SAMPLING_WIRE_NAMES } from '../../../../src-main/runtime/sampling/limits';
import { SamplingSchema } from '../../../../src-main/service/contract/schemas';
import { ChatCompletionBodySchema } from '../../../../src-main/service/openai/schemas';

const { temperature, topK, topP, seed, stop, minP, repeatPenalty, presencePenalty, frequencyPenalty } =
  SAMPLING_LIMITS;
const tooLongStop = 'x'.repeat(stop.maxLength + 1);
const manyStops = Array.from({ length: stop.maxCount + 1 }, (_, i) => `s${i}`);

/** Each setting at its bounds (accepted) and just past them (refused), in the contract's names. */
const CASES: { field: string; accepted: unknown[]; refused: unknown[] }[] = [
  {
    field: 'temperature',
    accepted: [temperature.min, temperature.max],
    refused: [temperature.max + 0.01, -1],
  },
  { field: 'topK', accepted: [topK.min, topK.max], refused: [topK.max + 1, 1.5] },
  { field: 'topP', accepted: [topP.max, 0.01], refused: [topP.minExclusive, topP.max + 0.01] },
  { field: 'seed', accepted: [seed.min, seed.max], refused: [seed.max + 1, -1] },
  { field: 'minP', accepted: [minP.min, minP.max], refused: [minP.max + 0.01, -0.01] },
  {
    field: 'repeatPenalty',
    accepted: [repeatPenalty.min, repeatPenalty.max],
    refused: [repeatPenalty.max + 0.01, 0],
  },
  {
    field: 'presencePenalty',
    accepted: [presencePenalty.min, presencePenalty.max],
    refused: [presencePenalty.max + 0.01, 'high'],
  },
  {
    field: 'frequencyPenalty',
    accepted: [frequencyPenalty.min, frequencyPenalty.max],
    refused: [frequencyPenalty.min - 0.01, 'high'],
  },
  {
    field: 'stop',
    accepted: [manyStops.slice(0, stop.maxCount), ['x'.repeat(stop.maxLength)]],
    refused: [manyStops, [tooLongStop], [''], ['end\uD800'], ['\uDC00x']],
  },
];
const OPENAI_NAMES: Record<string, string> = SAMPLING_WIRE_NAMES;

describe('sampling limits', () => {
  it.each(CASES)('$field: the contract and /v1 accept and refuse the same values', (c) => {
    const openAi = (value: unknown) =>
      ChatCompletionBodySchema.safeParse({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        [OPENAI_NAMES[c.field] ?? c.field]: value,
      }).success;
    const contract = (value: unknown) => SamplingSchema.safeParse({ [c.field]: value }).success;
    for (const value of c.accepted) expect([contract(value), openAi(value)]).toEqual([true, true]);
    for (const value of c.refused) expect([contract(value), openAi(value)]).toEqual([false, false]);
  });

  it('refuses a stop string holding half of a character, saying so', () => {
    const parsed = SamplingSchema.safeParse({ stop: ['ok', 'bad\uD800'] });
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['stop.1', 'a stop string must be whole text: it holds half of a character (a lone UTF-16 surrogate)'],
    ]);
    expect(SamplingSchema.safeParse({ stop: ['pair \uD83D\uDE00'] }).success).toBe(true);
  });

  it('leaves maxTokens to the runtime: any positive integer passes the schemas', () => {
    expect(SamplingSchema.safeParse({ maxTokens: 1_000_000 }).success).toBe(true);
    expect(SamplingSchema.safeParse({ maxTokens: 0 }).success).toBe(false);
  });
});
