import type { PushedEvent } from '../../src-main/service/contract';
import type { AnswerItem, ChatItem } from './chat-items';
import { namedVersion, updateAnswer } from './chat-items';

/** The request events the chat follows. */
export type RequestEvent = Extract<
  PushedEvent,
  { name: 'request.queued' | 'request.chunk' | 'request.done' }
>;

/** True for the events that belong to one request. */
export function isRequestEvent(event: PushedEvent): event is RequestEvent {
  return event.name === 'request.queued' || event.name === 'request.chunk' || event.name === 'request.done';
}

/**
 * Applies one request event to the answer waiting for it. A first chunk takes the batch's
 * arrival stamp as `firstChunkAt`; `request.done` sets the timeline and the client TTFT
 * (first chunk − send, both on the renderer's clock). Returns the items unchanged when no
 * answer has that request id.
 */
export function applyRequestEvent(items: ChatItem[], event: RequestEvent, receivedAt: number): ChatItem[] {
  const requestId = event.payload.requestId;
  return updateAnswer(
    items,
    (a) => a.requestId === requestId,
    (answer) => nextAnswer(answer, event, receivedAt),
  );
}

function nextAnswer(answer: AnswerItem, event: RequestEvent, receivedAt: number): AnswerItem {
  if (event.name === 'request.queued') {
    return answer.status === 'done'
      ? answer
      : { ...answer, status: 'waiting', queuePosition: event.payload.position };
  }
  if (event.name === 'request.chunk') {
    return {
      ...answer,
      text: answer.text + event.payload.text,
      status: answer.status === 'done' ? 'done' : 'streaming',
      queuePosition: null,
      firstChunkAt: answer.firstChunkAt ?? receivedAt,
    };
  }
  const clientTtftMs =
    answer.sentAt !== null && answer.firstChunkAt !== null ? answer.firstChunkAt - answer.sentAt : null;
  // The stream's end as this client saw it: the batch carrying request.done (on the same clock as sentAt).
  const clientE2eMs = answer.sentAt !== null && clientTtftMs !== null ? receivedAt - answer.sentAt : null;
  const timeline = {
    ...event.payload.timeline,
    clientTtftMs: clientTtftMs ?? event.payload.timeline.clientTtftMs,
    clientE2eMs: clientE2eMs ?? event.payload.timeline.clientE2eMs,
  };
  const { messageId } = event.payload;
  return {
    ...answer,
    ...(messageId ? { messageId, ...namedVersion(answer, messageId) } : {}),
    status: 'done',
    queuePosition: null,
    timeline,
    finishReason: timeline.finishReason,
    clientTtftMs: timeline.clientTtftMs,
  };
}
