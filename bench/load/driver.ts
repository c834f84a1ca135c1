import type { Arrivals } from './arrivals';
import type { ClientObservation, Target } from './client';
import { streamChat } from './client';
import type { PlannedRequest } from './plan';
import type { RemoteObservation } from '../../src-main/runtime/remote/observation';
import { remoteStreamChat } from './remote-call';

/** One request as sent: its plan, when it was due and sent (ms from phase start), what came back. */
export interface RequestRecord {
  planned: PlannedRequest;
  scheduledMs: number;
  sentMs: number;
  seen: ClientObservation;
  /** A remote engine's request: everything its remote client stamped (null in-process). */
  remote: RemoteObservation | null;
}

/** Everything one phase sends: the plan, its user messages, the arrivals and where runs are filed. */
export interface PhaseInput {
  plan: PlannedRequest[];
  /** User message text per planned request (made before the clock starts). */
  texts: string[];
  arrivals: Arrivals;
  modelId: string;
  runId: string | null;
  /**
   * Null in-process. For a remote engine: whether it takes `ignore_eos` (First Frame, llama.cpp
   * and vLLM do; a plain OpenAI server refuses unknown fields), and whether chats go to
   * Ollama's native API; `first_frame` is never sent, as runs are filed here, not there.
   */
  remote?: { isExtended: boolean; isOllamaNative: boolean } | null;
}

type ChatMessage = { role: 'user' | 'assistant'; content: string };

/**
 * Runs a phase: open-loop requests leave at their offsets, closed-loop ones in groups. A
 * follow-up turn waits for its conversation's previous answer (a person reads before typing),
 * then resends the whole history, so its prefix can hit context pages.
 */
export async function runPhase(
  target: Target,
  input: PhaseInput,
  onRecord: (record: RequestRecord) => void,
): Promise<RequestRecord[]> {
  const startAt = performance.now();
  const answers = input.plan.map(() => deferred<ChatMessage[]>());
  const send = async (planned: PlannedRequest, scheduledMs: number): Promise<RequestRecord> => {
    const history = planned.parentIndex === null ? [] : await answers[planned.parentIndex]!.promise;
    const messages: ChatMessage[] = [...history, { role: 'user', content: input.texts[planned.index]! }];
    const sentMs = performance.now() - startAt;
    const body = {
      model: input.modelId,
      messages,
      max_tokens: planned.maxTokens,
      temperature: 0,
      seed: planned.textSeed,
      // The workload sets output lengths: generate through end-of-turn tokens to reach them.
      ...(!input.remote || input.remote.isExtended ? { ignore_eos: true } : {}),
      ...(!input.remote
        ? { first_frame: { run_id: input.runId, conversation_id: planned.conversationId } }
        : {}),
    };
    const { seen, remote } = input.remote
      ? await remoteStreamChat(target, body, input.remote.isOllamaNative)
      : { seen: await streamChat(target, body), remote: null };
    answers[planned.index]!.resolve([...messages, { role: 'assistant', content: seen.text }]);
    const record = { planned, scheduledMs, sentMs, seen, remote };
    onRecord(record);
    return record;
  };
  if (input.arrivals.kind === 'open') {
    const offsets = input.arrivals.offsetsMs;
    return Promise.all(
      input.plan.map(async (planned, i) => {
        await sleepUntil(startAt + offsets[i]!);
        return send(planned, offsets[i]!);
      }),
    );
  }
  const records: RequestRecord[] = [];
  for (let i = 0; i < input.plan.length; i += input.arrivals.groupSize) {
    const dueMs = performance.now() - startAt;
    records.push(
      ...(await Promise.all(input.plan.slice(i, i + input.arrivals.groupSize).map((p) => send(p, dueMs)))),
    );
  }
  return records;
}

function sleepUntil(at: number): Promise<void> {
  const delayMs = at - performance.now();
  return delayMs <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, delayMs));
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
