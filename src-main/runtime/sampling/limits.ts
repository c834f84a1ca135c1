import { z } from 'zod';

/**
 * The bounds of every sampling setting, declared once: the service contract, the OpenAI-style
 * `/v1` schemas, the runtime's own check and the chat's sampling panel all read them. The
 * output length is not here: the runtime's configured output limit bounds `maxTokens`.
 * This file imports nothing but zod, so the renderer may read it too.
 */
export const SAMPLING_LIMITS = {
  /** 0 is greedy; above 2 the distribution is close to uniform (OpenAI's bound). */
  temperature: { min: 0, max: 2 },
  /** 0 keeps the whole vocabulary. */
  topK: { min: 0, max: 100_000 },
  /** Exclusive of 0: a nucleus must hold some probability. */
  topP: { minExclusive: 0, max: 1 },
  seed: { min: 0, max: 2 ** 31 - 1 },
  /** Keeps tokens at least this fraction as likely as the likeliest; 0 is off (llama.cpp, vLLM). */
  minP: { min: 0, max: 1 },
  /**
   * llama.cpp's repeat penalty over the last `numLastTokens` of prompt + answer (its default
   * repeat_last_n); 1 is off, below 1 rewards repeats.
   */
  repeatPenalty: { min: 0.5, max: 2, numLastTokens: 64 },
  /** Subtracted once from every token the answer holds; 0 is off (OpenAI's bound). */
  presencePenalty: { min: -2, max: 2 },
  /** Subtracted per occurrence in the answer so far; 0 is off (OpenAI's bound). */
  frequencyPenalty: { min: -2, max: 2 },
  /** Stop strings per request (OpenAI's bound) and characters per stop string. */
  stop: { maxCount: 4, maxLength: 200 },
} as const;

/**
 * Each bounded setting's name on `/v1`: OpenAI's, or llama.cpp's and vLLM's for their extensions
 * (`top_k`, `min_p`, `repeat_penalty`). The body schema, the request mapping and the error's
 * `param` read it.
 */
export const SAMPLING_WIRE_NAMES = {
  temperature: 'temperature',
  topK: 'top_k',
  topP: 'top_p',
  minP: 'min_p',
  repeatPenalty: 'repeat_penalty',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
  seed: 'seed',
} as const;

/** A setting that has a `/v1` name. */
export type WireSamplingKey = keyof typeof SAMPLING_WIRE_NAMES;

const { temperature, topK, topP, seed, stop, minP, repeatPenalty, presencePenalty, frequencyPenalty } =
  SAMPLING_LIMITS;

// A stop string is matched against decoded text, which never holds half a character: a lone
// surrogate (JSON's "\ud800") could never match and would only make the stop silently inert.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Zod schemas of each bounded setting, shared by every schema that accepts it. */
export const SAMPLING_FIELD_SCHEMAS = {
  temperature: z.number().min(temperature.min).max(temperature.max),
  topK: z.number().int().min(topK.min).max(topK.max),
  topP: z.number().gt(topP.minExclusive).max(topP.max),
  seed: z.number().int().min(seed.min).max(seed.max),
  minP: z.number().min(minP.min).max(minP.max),
  repeatPenalty: z.number().min(repeatPenalty.min).max(repeatPenalty.max),
  presencePenalty: z.number().min(presencePenalty.min).max(presencePenalty.max),
  frequencyPenalty: z.number().min(frequencyPenalty.min).max(frequencyPenalty.max),
  stopString: z
    .string()
    .min(1)
    .max(stop.maxLength)
    .refine((text) => !LONE_SURROGATE.test(text), {
      error: 'a stop string must be whole text: it holds half of a character (a lone UTF-16 surrogate)',
    }),
  maxTokens: z.number().int().min(1),
};
