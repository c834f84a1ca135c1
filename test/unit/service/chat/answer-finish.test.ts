import { describe, expect, it } from 'vitest';
import { answerFinishOf, storedFinishOf } from '../../../../src-main/service/chat/answer-finish';
import { FACTORY_SETTINGS } from '../../../../src-main/service/chat/settings';
import { exportJson } from '../../../../src-main/service/chat/transfer';
import { conversationView } from '../../../../src-main/service/chat/view';
import {
  ConversationExportSchema,
  MessageMetaSchema,
} from '../../../../src-main/service/contract/chat-schemas';
import type { ConversationRecord, MessageRecord } from '../../../../src-main/history/queries/chat-records';
import { timeline } from '../../telemetry/report/timeline-fixture';

const QUESTION: MessageRecord = {
  messageId: 'q',
  parentId: null,
  role: 'user',
  content: 'Hi?',
  createdWallMs: 0,
  requestId: null,
  finishReason: null,
  meta: {},
  timeline: null,
};

/** An answer row to the question; `meta` fields as the service stores them. */
const answer = (over: Partial<MessageRecord>, meta: Record<string, unknown> = {}): MessageRecord => ({
  ...QUESTION,
  messageId: 'a',
  parentId: 'q',
  role: 'assistant',
  content: 'Hello',
  requestId: 'r1',
  ...over,
  meta,
});

const conversation = (leaf: MessageRecord): ConversationRecord => ({
  conversationId: 'c',
  title: 'c',
  createdWallMs: 0,
  updatedWallMs: 0,
  numMessages: 2,
  leafMessageId: leaf.messageId,
  settings: {},
});

const running = (id: string) => id === 'r1';
const stopped = () => false;
const lengthTimeline = timeline({ id: 'r1', finish: 'length' });

/** Every kind of answer row, with whether its request still runs. */
const CASES: [string, MessageRecord, (id: string) => boolean][] = [
  ['stored finish', answer({ finishReason: 'cancelled', timeline: lengthTimeline }), stopped],
  ['checkpoint, request gone', answer({}, { isCheckpoint: true }), stopped],
  ['checkpoint, request running', answer({}, { isCheckpoint: true }), running],
  ['imported with a timeline only', answer({}, { importedTimeline: lengthTimeline }), stopped],
  ['no finish, no timeline', answer({}), stopped],
];

describe("an answer's finish, declared once", () => {
  it('is the stored finish, else interrupted for a checkpoint whose request is gone, else its timeline’s', () => {
    const finishOf = ([, m, isRunning]: (typeof CASES)[number]) => {
      const meta = MessageMetaSchema.parse(m.meta);
      return answerFinishOf(m, meta, m.timeline ?? meta.importedTimeline, isRunning);
    };
    expect(CASES.map(finishOf)).toEqual(['cancelled', 'interrupted', null, 'length', null]);
  });

  it('is exported as it is shown, with the same message fields, for every kind of answer row', () => {
    for (const [name, m, isRunning] of CASES) {
      const rows = [QUESTION, m];
      const shown = conversationView(conversation(m), FACTORY_SETTINGS, rows, () => undefined, isRunning);
      const file = exportJson(conversation(m), FACTORY_SETTINGS, rows, 0, isRunning);
      const exported = ConversationExportSchema.parse(JSON.parse(file)).messages.at(-1)!;
      const { messageId, parentId, role, content, createdWallMs, requestId, finishReason } =
        shown.messages.at(-1)!;
      const onScreen = { messageId, parentId, role, content, createdWallMs, requestId, finishReason };
      expect({ name, ...exported, meta: undefined, timeline: undefined }).toEqual({ name, ...onScreen });
    }
  });

  it('is stored as no finish when interrupted (the row stays a checkpoint), as itself otherwise', () => {
    expect(storedFinishOf('interrupted')).toBeNull();
    expect(storedFinishOf('stop')).toBe('stop');
    expect(storedFinishOf(null)).toBeNull();
  });
});
