import { randomUUID } from 'node:crypto';
import { allocateColumns } from '../telemetry/report/columns';
import type { HistoryUnavailable } from './errors';
import { DEFAULT_RETENTION } from './retention';
import type { ChatQueries } from './queries/chat-records';
import { conversationRecord, messageRecord } from './queries/chat-records';
import type { RunQueries } from './queries/runs';
import type { History } from './history';

/** Runs that live only in the caller's hands. */
const nullRuns: RunQueries = {
  create: ({ name, config = {}, runId = randomUUID(), startedWallMs = Date.now() }) => ({
    runId,
    name,
    startedWallMs,
    config,
    numRequests: 0,
  }),
  list: () => [],
  get: () => null,
  rename: () => false,
  remove: () => false,
  metrics: () => null,
};

/** Conversations and messages that live only in the caller's hands. */
const nullChats: ChatQueries = {
  createConversation: conversationRecord,
  listConversations: () => [],
  getConversation: () => null,
  renameConversation: () => false,
  setSettings: () => false,
  setLeaf: () => false,
  deleteConversation: () => false,
  search: () => [],
  addMessage: messageRecord,
  updateAnswer: () => false,
  messages: () => [],
  importConversation: (conversation) => conversationRecord(conversation),
  getSetting: () => null,
  putSetting: () => undefined,
};

/**
 * The store with persistence off: same surface, nothing kept. Writes are dropped (and
 * counted), lists are empty, and creating a run or conversation returns a record that lives
 * only in the caller's hands, so serving goes on and the UI can say why history is off.
 */
export function nullHistory(unavailable: HistoryUnavailable): History {
  let numDropped = 0;
  const drop = (): void => {
    numDropped++;
  };
  return {
    isPersistent: false,
    unavailable,
    health: { state: 'ok' },
    writer: {
      enqueue: drop,
      enqueueSlotEvent: drop,
      enqueueClientTtft: drop,
      flush: () => undefined,
      get stats() {
        return {
          numPending: 0,
          numWritten: 0,
          numFailed: 0,
          numDropped,
          numBatches: 0,
          numRetries: 0,
          isStopped: true,
        };
      },
    },
    timelines: {
      recent: () => [],
      ofRun: () => [],
      byRequestIds: () => new Map(),
      count: () => 0,
      batches: function* () {},
      reportColumns: () => allocateColumns(0, 0, []),
    },
    runs: nullRuns,
    chats: nullChats,
    slotEvents: { between: () => [] },
    retention: {
      policy: () => DEFAULT_RETENTION,
      setPolicy: () => undefined,
      prune: () => ({ numRequests: 0, numSlotEvents: 0, numRuns: 0 }),
    },
    preferences: { read: () => null, write: drop },
    contextPages: null,
    tokenPieces: null,
    close: () => undefined,
  };
}
