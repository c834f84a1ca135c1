import { INPUT_LIMITS } from '../../../src-main/limits';
import type { SendForecast } from '../../../src-main/service/contract';
import { formatCount } from '../../components/format';

/**
 * Why the draft cannot be sent as it is, in plain words, or null when it can: longer than a
 * message may be (characters, checked here before any request), or a prompt that does not fit
 * the model's context even with every older turn left out (tokens, from the latest forecast).
 */
export function sendBlockOf(draft: string, forecast: SendForecast | null): string | null {
  if (draft.length > INPUT_LIMITS.maxMessageChars)
    return `This message is ${formatCount(draft.length)} characters; one message holds at most ${formatCount(INPUT_LIMITS.maxMessageChars)}. Shorten it or send it in parts.`;
  if (forecast && !forecast.remote && forecast.numPromptTokens > forecast.promptLimit)
    return `This message does not fit: the prompt would be ${formatCount(forecast.numPromptTokens)} tokens and this model reads at most ${formatCount(forecast.promptLimit)} at once. Shorten it or send it in parts.`;
  return null;
}
