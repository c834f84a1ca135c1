import type { PairSampler } from './lengths';

/** One request of a phase as planned before anything is sent (deterministic for a seed). */
export interface PlannedRequest {
  index: number;
  conversationId: string;
  /** 1-based turn within its conversation. */
  turn: number;
  /** Index of the conversation's previous turn (its answer must exist before this is sent). */
  parentIndex: number | null;
  /** Length of this turn's new user message, in the model's tokens. */
  numUserTokens: number;
  maxTokens: number;
  /** Seed of this message's text, unique per request so independent prompts share no page. */
  textSeed: number;
}

/** What shapes a phase's plan. */
export interface PlanOptions {
  count: number;
  /** Share of requests that continue an earlier conversation (its history resent, pages reused). */
  multiTurnShare: number;
  maxTurns: number;
  /** Each request's prompt and output lengths (independent, or pairs from a run or trace). */
  lengths: PairSampler;
  uniform: () => number;
  /** Prefix of conversation ids and base of text seeds, unique per phase. */
  tag: string;
  seedBase: number;
}

/**
 * Plans `count` requests: each is a new conversation, or (with probability multiTurnShare,
 * when one is open) the next turn of a conversation started earlier, chosen uniformly.
 */
export function planRequests(options: PlanOptions): PlannedRequest[] {
  const planned: PlannedRequest[] = [];
  const open: { conversationId: string; lastIndex: number; numTurns: number }[] = [];
  for (let index = 0; index < options.count; index++) {
    const isFollowUp = open.length > 0 && options.uniform() < options.multiTurnShare;
    const pick = isFollowUp ? Math.floor(options.uniform() * open.length) : -1;
    const conversation =
      pick >= 0 ? open[pick]! : { conversationId: `${options.tag}-c${index}`, lastIndex: -1, numTurns: 0 };
    const uPrompt = options.uniform();
    const lengths = options.lengths(uPrompt, options.uniform());
    planned.push({
      index,
      conversationId: conversation.conversationId,
      turn: conversation.numTurns + 1,
      parentIndex: conversation.lastIndex >= 0 ? conversation.lastIndex : null,
      numUserTokens: lengths.numPromptTokens,
      maxTokens: lengths.numOutputTokens,
      textSeed: options.seedBase + index,
    });
    conversation.lastIndex = index;
    conversation.numTurns += 1;
    if (pick < 0) open.push(conversation);
    if (conversation.numTurns >= options.maxTurns) open.splice(open.indexOf(conversation), 1);
  }
  return planned;
}
