import { INPUT_LIMITS } from '../../../src-main/limits';
import type { SendForecast } from '../../../src-main/service/contract/chat-schemas';
import { formatCount } from '../../components/format';

/**
 * Why the draft cannot be sent as it is, in plain words, or null when it can: longer than a
 * message may be (characters, checked here before any request), or the latest forecast's own
 * refusal (a message or conversation the model's context cannot hold, in the service's words).
 */
export function sendBlockOf(draft: string, forecast: SendForecast | null): string | null {
  if (draft.length > INPUT_LIMITS.maxMessageChars)
    return `This message is ${formatCount(draft.length)} characters; one message holds at most ${formatCount(INPUT_LIMITS.maxMessageChars)}. Shorten it or send it in parts.`;
  return forecast?.refusal ?? null;
}
