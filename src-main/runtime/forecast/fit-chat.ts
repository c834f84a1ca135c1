import { maxPromptChars, PROMPT_LIMITS } from '../../limits';
import type { ChatTurn } from '../tokenize/tokenizer';

/** What happens when a conversation no longer fits: drop its oldest turns, or refuse to send. */
export type ContextOverflow = 'drop-oldest' | 'refuse';

/** The token limits a chat prompt is fitted to. */
export interface FitLimits {
  /** The runtime's prompt limit (RequestLimits.maxPromptTokens). */
  maxPromptTokens: number;
  /** The model's context: prompt plus answer positions. */
  maxPositions: number;
  /** Answer tokens to keep room for when older turns can be dropped (the request's max tokens). */
  answerReserve: number;
}

/**
 * A chat prompt fitted to the context. `messages` are the turns to send (the system prompt and
 * the newest turn always among them); `numDroppedMessages` oldest turns were left out.
 * `refusal` says why nothing can be sent (null: send `messages`).
 */
export interface ChatFit {
  messages: ChatTurn[];
  promptIds: number[];
  numDroppedMessages: number;
  /** The most prompt tokens a request may carry: min(maxPromptTokens, maxPositions − 1). */
  promptLimit: number;
  /** Tokens of the newest turn alone with the system prompt (what can never be dropped). */
  numMinimalTokens: number;
  refusal: { kind: 'message-too-long' | 'conversation-too-long'; message: string } | null;
}

/** Text → ids with the model's chat template (the runtime's tokenizer; long texts in its thread). */
export type ChatEncoder = (messages: readonly ChatTurn[]) => number[] | Promise<number[]>;

/**
 * Fits a conversation to the model's context. With `drop-oldest`, whole exchanges are left out
 * from the oldest on (a user turn and the answers after it) until the prompt plus room for the
 * answer fits; the system prompt and the newest turn are never dropped. A newest turn that
 * cannot fit even alone is refused (the conversation stays usable: nothing was stored).
 */
export async function fitChat(
  encode: ChatEncoder,
  turns: readonly ChatTurn[],
  limits: FitLimits,
  overflow: ContextOverflow,
): Promise<ChatFit> {
  const promptLimit = Math.max(1, Math.min(limits.maxPromptTokens, limits.maxPositions - 1));
  const budget = Math.max(1, Math.min(promptLimit, limits.maxPositions - limits.answerReserve));
  const system = turns[0]?.role === 'system' ? [turns[0]] : [];
  const rest = turns.slice(system.length);
  const minimal = [...system, ...rest.slice(-1)];
  const fit = (numDropped: number, promptIds: number[], numMinimalTokens: number): ChatFit => ({
    messages: [...system, ...rest.slice(numDropped)],
    promptIds,
    numDroppedMessages: numDropped,
    promptLimit,
    numMinimalTokens,
    refusal: null,
  });
  const byChars = await fitByCharacters(encode, turns, limits, overflow, {
    system,
    rest,
    minimal,
    promptLimit,
    fit,
  });
  if (byChars) return byChars;
  const all = await encode(turns);
  if (all.length <= budget)
    return fit(0, all, rest.length <= 1 ? all.length : (await encode(minimal)).length);
  const minimalIds = rest.length <= 1 ? all : await encode(minimal);
  if (minimalIds.length > promptLimit)
    return refuse(
      fit(0, all, minimalIds.length),
      'message-too-long',
      tooLong(minimalIds.length, promptLimit),
    );
  if (overflow === 'refuse') {
    if (all.length <= promptLimit) return fit(0, all, minimalIds.length);
    return refuse(
      fit(0, all, minimalIds.length),
      'conversation-too-long',
      overflowing(all.length, promptLimit),
    );
  }
  return dropOldest(encode, rest, system, budget, minimalIds, fit);
}

/** What the character pre-check needs from fitChat. */
interface CharContext {
  system: readonly ChatTurn[];
  rest: readonly ChatTurn[];
  minimal: readonly ChatTurn[];
  promptLimit: number;
  fit: (numDropped: number, promptIds: number[], numMinimalTokens: number) => ChatFit;
}

/**
 * Turns with more characters than the prompt limit could ever hold as tokens (no token stands
 * for more than PROMPT_LIMITS.maxCharsPerToken characters), or more turns than it has tokens
 * (a chat template gives every turn one at least), are never rendered or tokenized: a newest
 * turn that long is refused at once, and older turns that cannot fit are dropped (or, with
 * `refuse`, the conversation is refused) before the tokenizer sees them. Token counts in such
 * refusals are lower bounds. Null when everything is within the bound.
 */
async function fitByCharacters(
  encode: ChatEncoder,
  turns: readonly ChatTurn[],
  limits: FitLimits,
  overflow: ContextOverflow,
  context: CharContext,
): Promise<ChatFit | null> {
  const { system, rest, minimal, promptLimit, fit } = context;
  const maxChars = maxPromptChars(promptLimit);
  const atLeast = (list: readonly ChatTurn[]) =>
    Math.max(list.length, Math.ceil(charsOf(list) / PROMPT_LIMITS.maxCharsPerToken));
  const cannotFit = (list: readonly ChatTurn[]) => charsOf(list) > maxChars || list.length > promptLimit;
  if (charsOf(minimal) > maxChars)
    return refuse(
      fit(0, [], atLeast(minimal)),
      'message-too-long',
      tooLong(atLeast(minimal), promptLimit, true),
    );
  if (!cannotFit(turns)) return null;
  if (overflow === 'refuse')
    return refuse(
      fit(0, [], atLeast(minimal)),
      'conversation-too-long',
      overflowing(atLeast(turns), promptLimit, true),
    );
  let start = rest.length - 1;
  for (let i = rest.length - 2; i >= 1; i--) {
    if (cannotFit([...system, ...rest.slice(i)])) break;
    if (rest[i]!.role === 'user') start = i;
  }
  const kept = await fitChat(encode, [...system, ...rest.slice(start)], limits, overflow);
  return { ...kept, numDroppedMessages: kept.numDroppedMessages + start };
}

function charsOf(turns: readonly ChatTurn[]): number {
  let total = 0;
  for (const turn of turns) total += turn.content.length;
  return total;
}

/** Binary search over the cut points (turn starts) for the fewest drops that fit the budget. */
async function dropOldest(
  encode: ChatEncoder,
  rest: readonly ChatTurn[],
  system: readonly ChatTurn[],
  budget: number,
  minimalIds: number[],
  fit: (numDropped: number, promptIds: number[], numMinimalTokens: number) => ChatFit,
): Promise<ChatFit> {
  const cuts: number[] = [];
  for (let i = 1; i < rest.length - 1; i++) if (rest[i]!.role === 'user') cuts.push(i);
  let best: { numDropped: number; ids: number[] } = { numDropped: rest.length - 1, ids: minimalIds };
  let low = 0;
  let high = cuts.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const ids = await encode([...system, ...rest.slice(cuts[mid])]);
    if (ids.length <= budget) {
      best = { numDropped: cuts[mid]!, ids };
      high = mid - 1;
    } else {
      low = mid + 1;
    }
  }
  return fit(best.numDropped, best.ids, minimalIds.length);
}

function refuse(base: ChatFit, kind: NonNullable<ChatFit['refusal']>['kind'], message: string): ChatFit {
  return { ...base, refusal: { kind, message } };
}

function tooLong(numTokens: number, promptLimit: number, isLowerBound = false): string {
  return `This message is ${isLowerBound ? 'at least ' : ''}${numTokens.toLocaleString('en-US')} tokens; the model holds at most ${promptLimit.toLocaleString('en-US')}. Nothing was sent or stored: shorten it or split it.`;
}

function overflowing(numTokens: number, promptLimit: number, isLowerBound = false): string {
  return `The conversation is ${isLowerBound ? 'at least ' : ''}${numTokens.toLocaleString('en-US')} tokens; the model holds at most ${promptLimit.toLocaleString('en-US')}. Nothing was sent: start a new chat, or let this one drop its oldest turns (conversation settings).`;
}
