import { randomUUID } from 'node:crypto';
import type { ChatPlan } from '../../runtime/forecast/plan-chat';
import type { ChatTurn } from '../../runtime/tokenize/tokenizer';
import type { GenerationRequest } from '../../runtime/scheduler/request';
import { TemplateError } from '../../runtime/tokenize/chat-template';
import { RemoteEngine } from '../../runtime/remote/remote-engine';
import type { ConversationRecord, MessageRecord } from '../../history/queries/chat-records';
import { ServiceFailure } from '../contract/result';
import type { ConversationSettings, MessageMeta, SendForecast, TurnStarted } from '../contract/chat-schemas';
import type { Sampling } from '../contract/schemas';
import type { CoreDeps } from '../core-deps';
import { answerKeeper } from './answer-keeper';
import { remotePlan } from './remote-plan';
import { chatSampling } from './settings';
import { pathTo } from './tree';

/** A conversation's title until its first message names it. */
export const NEW_TITLE = 'New chat';

/** What a turn is sent with: the conversation's settings, optionally overridden for this send. */
export interface TurnSettings {
  settings: ConversationSettings;
  modelId?: string;
  sampling?: Sampling;
}

/** The chat turns a request carries: the system prompt, then the branch, then `next` if any. */
export function turnsOf(
  settings: ConversationSettings,
  branch: readonly MessageRecord[],
  next?: string,
): ChatTurn[] {
  const turns: ChatTurn[] = settings.systemPrompt.trim()
    ? [{ role: 'system', content: settings.systemPrompt }]
    : [];
  for (const m of branch) turns.push({ role: m.role, content: m.content });
  if (next !== undefined) turns.push({ role: 'user', content: next });
  return turns;
}

/** Plans a turn with the runtime (fit to the context, cached pages, TTFT estimate). */
export async function planTurn(
  deps: CoreDeps,
  turns: readonly ChatTurn[],
  how: TurnSettings,
): Promise<ChatPlan> {
  const sampling = how.sampling ?? how.settings.sampling;
  const modelId = how.modelId ?? how.settings.modelId;
  if (RemoteEngine.isRemote(modelId)) return remotePlan(deps.remote, deps.window, modelId!, turns);
  try {
    return await deps.runtime.planChat({
      modelId,
      messages: turns,
      ...(sampling.maxTokens !== undefined ? { maxTokens: sampling.maxTokens } : {}),
      overflow: how.settings.contextOverflow,
    });
  } catch (error) {
    // A template that fails or runs past its bounds on these messages refuses the turn; an unknown or broken model is not found.
    if (error instanceof TemplateError)
      throw new ServiceFailure('invalid_input', `chat template ${error.message}`);
    throw new ServiceFailure('not_found', (error as Error).message);
  }
}

/** The forecast the composer shows (and an answer keeps) from a plan. */
export function forecastOf(plan: ChatPlan): SendForecast {
  return {
    modelId: plan.modelId,
    numPromptTokens: plan.numPromptTokens,
    promptLimit: plan.promptLimit,
    contextTokens: plan.contextTokens,
    numCachedTokens: plan.numCachedTokens,
    numCachedPages: plan.numCachedPages,
    numDiskPages: plan.numDiskPages,
    numDiskBytes: plan.numDiskBytes,
    estDiskReadMs: plan.estDiskReadMs,
    numNewTokens: plan.numNewTokens,
    pageSize: plan.pageSize,
    numDroppedMessages: plan.numDroppedMessages,
    isSlotCold: plan.isSlotCold,
    estTtftMs: plan.estTtftMs,
    estWaitMs: plan.estWaitMs,
    numAhead: plan.numAhead,
    refusal: plan.refusal?.message ?? null,
    remote: RemoteEngine.isRemote(plan.modelId) ? { note: REMOTE_NOTE } : null,
  };
}

/** What a remote model's forecast says instead of token counts. */
const REMOTE_NOTE =
  'sent to the remote endpoint as it is: the server tokenizes and fits the context, so no token counts are known before the answer';

/** Throws the plan's refusal (before anything is stored): Send stays usable, nothing is lost. */
export function refuseIfTooLong(plan: ChatPlan): void {
  if (plan.refusal) throw new ServiceFailure('invalid_input', plan.refusal.message);
}

/** One turn to run: the question it answers and what was planned for it. */
export interface TurnJob {
  conversation: ConversationRecord;
  userMessageId: string;
  plan: ChatPlan;
  how: TurnSettings;
  /** The conversation's leaf when the turn started: the answer becomes the leaf only if it still is. */
  leafAtStart: string | null;
  /** Cut the answer this many ms after arrival (finish reason `deadline`); default: the setting. */
  deadlineMs?: number;
  /** The request's id (see turnRequestId). */
  requestId: string;
}

/**
 * The id of a turn's request: the client's (so it can match the request's events before the
 * method's reply), refused when a request with it is still in flight; else a new one. Called
 * before the turn stores anything.
 */
export function turnRequestId(deps: CoreDeps, requested: string | undefined): string {
  if (requested === undefined) return randomUUID();
  if (deps.runtime.isInFlight(requested) || deps.remote.isInFlight(requested))
    throw new ServiceFailure('invalid_input', `request id ${requested} is already in use`);
  return requested;
}

/**
 * Submits the turn to the runtime; chunks and the outcome go out as pushed events. The answer
 * is kept from its first chunk to its end, however it ends (answer-keeper.ts).
 */
export function runTurn(deps: CoreDeps, job: TurnJob): TurnStarted {
  const { hub } = deps;
  const engine = RemoteEngine.isRemote(job.plan.modelId) ? deps.remote : deps.runtime;
  const { requestId } = job;
  const forecast = forecastOf(job.plan);
  const request: GenerationRequest = {
    requestId,
    modelId: job.plan.modelId,
    prompt: { kind: 'chat', messages: job.plan.messages },
    conversationId: job.conversation.conversationId,
    ...chatSampling(job.how.sampling ?? job.how.settings.sampling),
    ...(job.deadlineMs === undefined ? {} : { deadlineMs: job.deadlineMs }),
  };
  const meta: MessageMeta = {
    forecast,
    numDroppedMessages: job.plan.numDroppedMessages,
    importedTimeline: null,
    errorMessage: null,
    isCheckpoint: false,
  };
  const answer = answerKeeper(
    deps,
    {
      conversationId: job.conversation.conversationId,
      userMessageId: job.userMessageId,
      leafAtStart: job.leafAtStart,
      requestId,
    },
    meta,
  );
  engine.submit(request, {
    onQueued: (position) => hub.emit('request.queued', { requestId, position }),
    onChunk: (chunk) => {
      hub.emit('request.chunk', {
        requestId,
        text: chunk.text,
        numTokens: chunk.numTokens ?? chunk.tokenIds.length,
      });
      answer.onText(chunk.text);
    },
    // The timeline itself goes out once, in timeline.finished (every finished request's feed).
    onDone: (outcome) =>
      hub.emit('request.done', {
        requestId,
        finishReason: outcome.timeline.finishReason,
        messageId: answer.finish(outcome),
      }),
  });
  return { requestId, userMessageId: job.userMessageId, forecast };
}

/** The first line of the first message, shortened, as the conversation's title. */
export function titleOf(content: string): string {
  const line = content.trim().split('\n')[0] ?? NEW_TITLE;
  return line.length > 48 ? `${line.slice(0, 47)}…` : line || NEW_TITLE;
}

/** The branch a new message follows: the path to the conversation's leaf. */
export function branchOf(deps: CoreDeps, conversation: ConversationRecord): MessageRecord[] {
  return pathTo(deps.chats.messages(conversation.conversationId), conversation.leafMessageId);
}
