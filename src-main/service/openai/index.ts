export { createOpenAiService } from './service';
export type {
  Frame,
  FrameSink,
  OpenAiCall,
  OpenAiDeps,
  OpenAiEndpoint,
  OpenAiErrorBody,
  OpenAiFailure,
  OpenAiModel,
  OpenAiService,
} from './types';
export { ChatCompletionBodySchema, CompletionBodySchema, FirstFrameExtensionSchema } from './schemas';
export type { ChatCompletionBody, CompletionBody } from './schemas';
export { openAiFailure, fromZod, paramOf } from './errors';
export { timingsOf, usageOf, partKey } from './timings';
export type { OpenAiTimings, OpenAiUsage } from './timings';
export { openAiFinishReason } from './responses';
export { DEADLINE_HEADER } from './deadline';
