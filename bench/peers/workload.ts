import type { ChatTurn, TextTokenizer } from '../../src-main/runtime/tokenize/tokenizer';
import { promptOfTokens } from '../first-frame/prompts';

/** The shared workload: every engine gets exactly these prompts (same text, same token ids). */
export interface PeersWorkload {
  numRuns: number;
  numPromptTokens: number;
  numOutputTokens: number;
  numTurns: number;
  /** How many multi-turn conversations are run (one after another) for per-turn medians. */
  numConversationRuns: number;
  numUserTokens: number;
  numConversations: number;
  numConcurrentTurns: number;
  numThreads: number;
}

/** `numRuns` single-turn chats of about `numPromptTokens` tokens, each with a different first page. */
export function singleTurnPrompts(tokenizer: TextTokenizer, workload: PeersWorkload): ChatTurn[][] {
  return Array.from({ length: workload.numRuns }, (_, i) => [
    { role: 'user' as const, content: promptOfTokens(tokenizer, workload.numPromptTokens, 6000 + i) },
  ]);
}

/** The user message of `turn` (1-based) in conversation `conversation` (0-based). */
export function userMessage(
  tokenizer: TextTokenizer,
  workload: PeersWorkload,
  conversation: number,
  turn: number,
): ChatTurn {
  return {
    role: 'user',
    content: promptOfTokens(tokenizer, workload.numUserTokens, 7000 + conversation * 100 + turn),
  };
}

/** The workload as printed and stored in --json. */
export function describeWorkload(workload: PeersWorkload) {
  return {
    llama_cpp: `per precision: 1 greedy check + ${workload.numRuns} rounds of one ~${workload.numPromptTokens}-token prompt (the same ids for every engine), ${workload.numOutputTokens} output tokens, end tokens ignored by all; First Frame, floor and llama.cpp in turn each round`,
    single_turn: `${workload.numRuns} chats of one ~${workload.numPromptTokens}-token user message, ${workload.numOutputTokens} output tokens, greedy`,
    multi_turn: `${workload.numConversationRuns} conversations of ${workload.numTurns} turns (medians per turn): ~${workload.numUserTokens}-token user messages, ${workload.numOutputTokens} output tokens, the history (with First Frame's own answers) resent every turn`,
    concurrent: `${workload.numConversations} conversations × ${workload.numConcurrentTurns} turns at once (First Frame) vs the same prompts one at a time (peer)`,
    threads: workload.numThreads,
  };
}
