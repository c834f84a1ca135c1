export { seededRandom, SeededRandom } from './rng';
export type { Random } from './rng';
export { argmax, sampleToken, DEFAULT_SAMPLING } from './sampler';
export type { SamplingParams } from './sampler';
export { StopMatcher } from './stop-matcher';
export { IncrementalDetokenizer } from './detokenizer';
export type { Decoder } from './detokenizer';
export { SAMPLING_FIELD_SCHEMAS, SAMPLING_LIMITS } from './limits';
