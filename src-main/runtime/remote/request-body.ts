import type { GenerationRequest } from '../scheduler/request';
import type { KnownEngine } from './endpoint-input';
import type { StreamProtocol } from './stream-call';

/** Where one request goes and what it carries. */
export interface RemoteCallPlan {
  url: string;
  protocol: StreamProtocol;
  body: object;
}

/** Engines that accept OpenAI's body plus `top_k`, `min_p`, `repeat_penalty` and `ignore_eos` (a plain OpenAI server refuses unknown fields). */
const EXTENDED: ReadonlySet<KnownEngine> = new Set(['first-frame', 'llama.cpp', 'vllm']);

/** True when `engine` takes OpenAI's body plus `top_k` and `ignore_eos`. */
export function isExtendedEngine(engine: KnownEngine): boolean {
  return EXTENDED.has(engine);
}

/**
 * The call for a request: Ollama's native `/api/chat` for an Ollama endpoint's chats (the only
 * API where it reports its durations), otherwise OpenAI's streamed chat or text completion
 * with usage included. Sampling fields the caller left unset are not sent (the server's
 * defaults apply); the extensions (`top_k`, `min_p`, …) only to engines that take them.
 */
export function planRemoteCall(
  baseUrl: string,
  engine: KnownEngine,
  serverModelId: string,
  request: GenerationRequest,
): RemoteCallPlan {
  if (engine === 'ollama' && request.prompt.kind === 'chat')
    return {
      url: `${new URL(baseUrl).origin}/api/chat`,
      protocol: 'ollama',
      body: {
        model: serverModelId,
        messages: request.prompt.messages,
        stream: true,
        options: defined({
          temperature: request.temperature,
          top_k: request.topK,
          top_p: request.topP,
          seed: request.seed,
          min_p: request.minP,
          repeat_penalty: request.repeatPenalty,
          presence_penalty: request.presencePenalty,
          frequency_penalty: request.frequencyPenalty,
          num_predict: request.maxTokens,
          stop: request.stop,
        }),
      },
    };
  const isChat = request.prompt.kind === 'chat';
  return {
    url: `${baseUrl}/${isChat ? 'chat/completions' : 'completions'}`,
    protocol: 'openai',
    body: defined({
      model: serverModelId,
      ...(request.prompt.kind === 'chat'
        ? { messages: request.prompt.messages }
        : { prompt: request.prompt.text }),
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: request.maxTokens,
      temperature: request.temperature,
      top_p: request.topP,
      seed: request.seed,
      stop: request.stop,
      presence_penalty: request.presencePenalty,
      frequency_penalty: request.frequencyPenalty,
      ...(EXTENDED.has(engine)
        ? {
            top_k: request.topK,
            min_p: request.minP,
            repeat_penalty: request.repeatPenalty,
            ignore_eos: request.ignoreEos,
          }
        : {}),
    }),
  };
}

/** The object without its undefined fields (JSON would drop them; this keeps bodies readable in tests). */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
