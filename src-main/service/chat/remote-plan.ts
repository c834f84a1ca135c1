import type { ChatPlan } from '../../runtime/forecast/plan-chat';
import type { ChatTurn } from '../../runtime/tokenize/tokenizer';
import { parseRemoteRef } from '../../runtime/remote/endpoints';
import type { RemoteEngine } from '../../runtime/remote/remote-engine';
import type { TimelineWindow } from '../../telemetry/report/window';
import { ServiceFailure } from '../contract/result';

/** How many recent answers of the same remote model the TTFT estimate is the median of. */
const NUM_RECENT = 20;

/**
 * A remote model's plan: the whole conversation goes as it is (the server tokenizes, fits and
 * refuses; its 400 comes back on the answer), so every token count is 0 here and the
 * forecast says so through its `remote` field. The estimate is the median client TTFT of the
 * model's last answers. Throws `not_found` for an endpoint that does not exist.
 */
export function remotePlan(
  remote: RemoteEngine,
  window: TimelineWindow,
  modelId: string,
  turns: readonly ChatTurn[],
): ChatPlan {
  const ref = parseRemoteRef(modelId)!;
  if (!remote.endpoints.get(ref.endpointId))
    throw new ServiceFailure(
      'not_found',
      `no endpoint "${ref.endpointId}": add it in Slots, or pick another model`,
    );
  return {
    messages: [...turns],
    numDroppedMessages: 0,
    promptLimit: 0,
    numMinimalTokens: 0,
    refusal: null,
    modelId,
    numPromptTokens: 0,
    contextTokens: 0,
    pageSize: 1,
    numCachedTokens: 0,
    numCachedPages: 0,
    numDiskPages: 0,
    numDiskBytes: 0,
    estDiskReadMs: null,
    numNewTokens: 0,
    isSlotCold: false,
    estTtftMs: medianRecentTtft(window, modelId),
    msPerToken: null,
    estWaitMs: null,
    numAhead: 0,
  };
}

function medianRecentTtft(window: TimelineWindow, modelId: string): number | null {
  const recent = window
    .toArray()
    .filter((t) => t.modelId === modelId && t.ttftMs !== null)
    .slice(-NUM_RECENT)
    .map((t) => t.ttftMs!)
    .sort((a, b) => a - b);
  return recent.length === 0 ? null : recent[Math.ceil(recent.length / 2) - 1]!;
}
