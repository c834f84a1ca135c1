import type { ConversationRecord, MessageRecord } from '../../history/queries/chat-records';
import type { Timeline } from '../../telemetry/timeline/schema';
import { MessageMetaSchema } from '../contract/chat-schemas';
import type {
  ConversationSettings,
  ConversationSummary,
  ConversationView,
  StoredMessage,
} from '../contract/chat-schemas';
import { answerFinishOf } from './answer-finish';
import { pathTo } from './tree';

/** A conversation record as the sidebar lists it. */
export function summaryOf(record: ConversationRecord): ConversationSummary {
  const { conversationId, title, createdWallMs, updatedWallMs, numMessages } = record;
  return { conversationId, title, createdWallMs, updatedWallMs, numMessages };
}

/**
 * The branch on screen, each message with its versions and timeline: the stored one, else the
 * live window's (the writer has not flushed it yet), else the one an import brought along. An
 * answer's checkpoint whose request no longer runs (`isRunning`) was cut off by the app's end:
 * it reads as `interrupted`.
 */
export function conversationView(
  record: ConversationRecord,
  settings: ConversationSettings,
  all: readonly MessageRecord[],
  liveTimeline: (requestId: string) => Timeline | undefined,
  isRunning: (requestId: string) => boolean = () => false,
): ConversationView {
  const versions = new Map<string, string[]>();
  for (const m of all) {
    const key = `${m.parentId ?? ''}|${m.role}`;
    versions.set(key, [...(versions.get(key) ?? []), m.messageId]);
  }
  const messages = pathTo(all, record.leafMessageId).map((m): StoredMessage => {
    const meta = MessageMetaSchema.parse(m.meta ?? {});
    const versionIds = versions.get(`${m.parentId ?? ''}|${m.role}`) ?? [m.messageId];
    const timeline =
      m.timeline ?? (m.requestId ? liveTimeline(m.requestId) : undefined) ?? meta.importedTimeline ?? null;
    return {
      ...messageFieldsOf(m),
      timeline,
      finishReason: answerFinishOf(m, meta, timeline, isRunning),
      errorMessage:
        meta.errorMessage ?? (m.finishReason === 'error' ? (timeline?.errorMessage ?? null) : null),
      forecast: meta.forecast,
      numDroppedMessages: meta.numDroppedMessages,
      versionIds,
      version: versionIds.indexOf(m.messageId) + 1,
    };
  });
  return { conversation: summaryOf(record), settings, messages };
}

/** The fields of a stored message that the screen and an export carry as they are. */
export function messageFieldsOf(
  m: MessageRecord,
): Pick<MessageRecord, 'messageId' | 'parentId' | 'role' | 'content' | 'createdWallMs' | 'requestId'> {
  const { messageId, parentId, role, content, createdWallMs, requestId } = m;
  return { messageId, parentId, role, content, createdWallMs, requestId };
}
