import { isWarmSlotStatus } from '../../telemetry/residency/schema';
import type { ModelCatalogue } from '../model/catalogue';
import type { ChatTurn } from '../tokenize/tokenizer';
import type { RamPages } from '../pages/ram-pages';
import type { RequestLimits } from '../scheduler/route';
import { encodePromptIds, renderChatPrompt } from '../tokenize/prompt-threads';
import type { OffThreadPrompts } from '../tokenize/prompt-threads';
import type { SlotRegistry } from '../slots/slot-registry';
import type { ChatFit, ContextOverflow } from './fit-chat';
import { fitChat } from './fit-chat';
import type { PrefillRate } from './prefill-rate';

/** A chat turn about to be sent: the whole conversation so far, newest turn last. */
export interface ChatPlanInput {
  modelId?: string | null;
  messages: readonly ChatTurn[];
  maxTokens?: number;
  overflow: ContextOverflow;
}

/** What the engine holds right now that a new request would wait behind. */
export interface QueueNow {
  /** Requests already waiting for a seat. */
  numWaiting: number;
  /** Requests being answered (a step of theirs may be in flight). */
  numRunning: number;
}

/**
 * What sending would do: the turns that fit, the context they fill, how much of the prompt the
 * RAM tier already holds, and the TTFT that the measured prefill rate predicts.
 */
export interface ChatPlan extends Omit<ChatFit, 'promptIds'> {
  modelId: string;
  numPromptTokens: number;
  /** The model's context (prompt plus answer positions). */
  contextTokens: number;
  pageSize: number;
  /** Prompt tokens that cached pages cover right now (a whole number of pages). */
  numCachedTokens: number;
  numCachedPages: number;
  /** Of numCachedPages, those read back from disk first (remembered context) and their bytes. */
  numDiskPages: number;
  numDiskBytes: number;
  /**
   * The disk read inside estTtftMs, at this machine's measured read rate; null before a read
   * was measured (the disk pages are then forecast as prefilled: the slower of the two).
   */
  estDiskReadMs: number | null;
  /** Tokens the prefill must compute: prompt − cached. */
  numNewTokens: number;
  /** The slot is not resident: the estimate includes the last measured load. */
  isSlotCold: boolean;
  /** overhead + new tokens × ms/token + waits (+ last load when cold); null before any measurement. */
  estTtftMs: number | null;
  /** The waits inside estTtftMs: the step in flight and the requests queued ahead (ms). */
  estWaitMs: number | null;
  /** Requests waiting for a seat now, ahead of this one. */
  numAhead: number;
  msPerToken: number | null;
}

/** What planning needs from the runtime. */
export interface PlanDeps {
  catalogue: ModelCatalogue;
  registry: SlotRegistry;
  pages: RamPages | null;
  pageSize: number;
  limits: RequestLimits;
  rate: PrefillRate;
  /** Renders a slow template and encodes a long prompt off the serving thread (null: inline, as in unit tests). */
  promptThreads: OffThreadPrompts | null;
  /** The engine's queue now (absent: nothing ahead, as in unit tests). */
  queueNow?: () => QueueNow;
}

/**
 * Plans one chat turn without running it; rejects with an Error naming the model when it cannot
 * load. A rendered prompt with more than PROMPT_LIMITS.inlineTokenizeChars not in the tokenizer's
 * cache is tokenized in the tokenizer thread, and a slow template rendered in the template thread,
 * as a request's are, so planning never holds the serving thread for long.
 */
export async function planChat(deps: PlanDeps, input: ChatPlanInput): Promise<ChatPlan> {
  // The same default as the route: the setting first, else the catalogue's own pick.
  const modelId = input.modelId ?? deps.limits.defaultModel ?? deps.catalogue.defaultModelId();
  if (!modelId) throw new Error('no model is available: the models folder is empty or broken');
  const model = deps.catalogue.resolve(modelId);
  if (model instanceof Error) throw model;
  const { shape } = model.folder;
  const maxTokens = input.maxTokens ?? deps.limits.defaultMaxTokens;
  const fit = await fitChat(
    async (messages) => {
      const prompt = await renderChatPrompt(model, messages, deps.promptThreads);
      return encodePromptIds(model, prompt, deps.promptThreads);
    },
    input.messages,
    {
      maxPromptTokens: deps.limits.maxPromptTokens,
      maxPositions: shape.maxPositions,
      answerReserve: Math.min(maxTokens, Math.floor(shape.maxPositions / 4)),
    },
    input.overflow,
  );
  const { promptIds, ...rest } = fit;
  const slot = deps.registry.slotOf(model.modelId);
  const isSlotCold = !(slot && isWarmSlotStatus(slot.status));
  // The scheduler always leaves one token to prefill (it makes the logits): same bound here.
  const maxPages = Math.floor((promptIds.length - 1) / deps.pageSize);
  const peeked =
    deps.pages && slot?.pageIdentity && !isSlotCold
      ? deps.pages.peek(slot.pageIdentity, promptIds, maxPages)
      : { numRamPages: 0, numDiskPages: 0, numDiskBytes: 0 };
  const numCachedPages = peeked.numRamPages + peeked.numDiskPages;
  const numCachedTokens = numCachedPages * deps.pageSize;
  const numNewTokens = promptIds.length - numCachedTokens;
  const rate = deps.rate.estimate(model.modelId);
  const msPerDiskByte = deps.rate.diskReadMsPerByte();
  const estDiskReadMs =
    peeked.numDiskPages > 0 && msPerDiskByte !== null ? peeked.numDiskBytes * msPerDiskByte : null;
  // Without a measured read the disk pages count as prefilled tokens: a forecast never too low.
  const numForecastTokens =
    numNewTokens +
    (peeked.numDiskPages > 0 && estDiskReadMs === null ? peeked.numDiskPages * deps.pageSize : 0);
  const loadMs = isSlotCold ? (rate?.slotLoadMs ?? 0) : 0;
  const queue = deps.queueNow?.() ?? { numWaiting: 0, numRunning: 0 };
  // Known waits: the step in flight (when anything runs) and each request already queued ahead.
  const waitMs = rate
    ? (queue.numRunning > 0 ? rate.stepWaitMs : 0) + queue.numWaiting * (rate.msPerAhead ?? 0)
    : null;
  return {
    ...rest,
    modelId: model.modelId,
    numPromptTokens: promptIds.length,
    contextTokens: shape.maxPositions,
    pageSize: deps.pageSize,
    numCachedTokens,
    numCachedPages,
    numDiskPages: peeked.numDiskPages,
    numDiskBytes: peeked.numDiskBytes,
    estDiskReadMs,
    numNewTokens,
    isSlotCold,
    estTtftMs: rate
      ? rate.overheadMs + numForecastTokens * rate.msPerToken + (estDiskReadMs ?? 0) + loadMs + waitMs!
      : null,
    estWaitMs: waitMs,
    numAhead: queue.numWaiting,
    msPerToken: rate?.msPerToken ?? null,
  };
}
