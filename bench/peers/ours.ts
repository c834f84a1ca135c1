import { collectGeneration } from '../../src-main/runtime/collect';
import type { ChatTurn } from '../../src-main/runtime/tokenize/tokenizer';
import type { Runtime } from '../../src-main/runtime/runtime';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import type { PeersWorkload } from './workload';

/** One First Frame request: its checked timeline and its answer. */
export interface OursRun {
  timeline: Timeline;
  text: string;
}

let counter = 0;

/** One greedy chat request through the runtime; throws unless it finished normally. */
export async function askOurs(
  runtime: Runtime,
  modelId: string,
  messages: ChatTurn[],
  maxTokens: number,
  conversationId: string | null = null,
): Promise<OursRun> {
  const result = await collectGeneration(runtime, {
    requestId: `peers-${++counter}`,
    modelId,
    prompt: { kind: 'chat', messages },
    maxTokens,
    temperature: 0,
    conversationId,
  });
  const reason = result.timeline.finishReason;
  if (reason !== 'stop' && reason !== 'length')
    throw new Error(`First Frame request ended ${reason}: ${result.errorMessage}`);
  return { timeline: result.timeline, text: result.text };
}

/**
 * `numConversations` conversations at once, each `turns` turns long (a turn is sent when its
 * previous answer is back). Returns every request's messages, in completion order per
 * conversation, for the peer to replay one at a time.
 */
export async function oursConcurrent(
  runtime: Runtime,
  modelId: string,
  workload: PeersWorkload,
  userMessage: (conversation: number, turn: number) => ChatTurn,
): Promise<{ runs: OursRun[]; prompts: ChatTurn[][] }> {
  const runs: OursRun[] = [];
  const prompts: ChatTurn[][] = [];
  const conversation = async (c: number) => {
    let history: ChatTurn[] = [];
    for (let turn = 1; turn <= workload.numConcurrentTurns; turn++) {
      const messages = [...history, userMessage(c, turn)];
      const run = await askOurs(
        runtime,
        modelId,
        messages,
        workload.numOutputTokens,
        `peers-concurrent-${c}`,
      );
      runs.push(run);
      prompts.push(messages);
      history = [...messages, { role: 'assistant', content: run.text }];
    }
  };
  await Promise.all(Array.from({ length: workload.numConversations }, (_, c) => conversation(c)));
  return { runs, prompts };
}

/** Output tokens per second from the first arrival to the last finish. */
export function oursTokensPerS(runs: readonly OursRun[]): number {
  const startAt = Math.min(...runs.map((r) => r.timeline.arrivedAt));
  const endAt = Math.max(...runs.map((r) => r.timeline.finishedAt));
  return (runs.reduce((sum, r) => sum + r.timeline.numOutputTokens, 0) * 1000) / (endAt - startAt);
}
