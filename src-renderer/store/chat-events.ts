import type { PushedEvent } from '../../src-main/service/contract/events';
import type { AnswerItem, ChatItem } from './chat-items';
import { namedVersion, updateAnswer } from './chat-items';

/** The events the chat follows: a request's own, and the finished timelines (one of which may be an answer's). */
export type RequestEvent = Extract<
  PushedEvent,
  { name: 'request.queued' | 'request.chunk' | 'request.done' | 'timeline.finished' }
>;

/** True for the events the chat follows. */
export function isRequestEvent(event: PushedEvent): event is RequestEvent {
  return (
    event.name === 'request.queued' ||
    event.name === 'request.chunk' ||
    event.name === 'request.done' ||
    event.name === 'timeline.finished'
  );
}

/** The request an event belongs to. */
function requestIdOf(event: RequestEvent): string {
  return event.name === 'timeline.finished' ? event.payload.timeline.requestId : event.payload.requestId;
}

/**
 * Applies one event to the answer waiting for it. A first chunk takes the batch's arrival stamp
 * as `firstChunkAt` (client TTFT = first chunk − send), `request.done` its own as `doneAt`
 * (client E2E = done − send), both on the renderer's clock; `timeline.finished` brings the
 * timeline, with those client figures in it. Returns the items unchanged when no answer has
 * that request id (other clients' requests, the API, benchmarks).
 */
export function applyRequestEvent(items: ChatItem[], event: RequestEvent, receivedAt: number): ChatItem[] {
  return updateAnswer(
    items,
    (a) => a.requestId === requestIdOf(event),
    (answer) => withClientFigures(nextAnswer(answer, event, receivedAt)),
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
  if (event.name === 'timeline.finished') return { ...answer, timeline: event.payload.timeline };
  const { messageId, finishReason } = event.payload;
  return {
    ...answer,
    ...(messageId ? { messageId, ...namedVersion(answer, messageId) } : {}),
    status: 'done',
    queuePosition: null,
    finishReason,
    doneAt: receivedAt,
  };
}

/** The answer's timeline carrying this client's own figures, once it has them. */
function withClientFigures(answer: AnswerItem): AnswerItem {
  const { sentAt, firstChunkAt, doneAt, timeline } = answer;
  const clientTtftMs = sentAt !== null && firstChunkAt !== null ? firstChunkAt - sentAt : null;
  const clientE2eMs = clientTtftMs !== null && doneAt !== null ? doneAt - sentAt! : null;
  if (timeline === null) return { ...answer, clientTtftMs };
  return {
    ...answer,
    clientTtftMs: clientTtftMs ?? timeline.clientTtftMs,
    timeline: {
      ...timeline,
      clientTtftMs: clientTtftMs ?? timeline.clientTtftMs,
      clientE2eMs: clientE2eMs ?? timeline.clientE2eMs,
    },
  };
}
