import { describe, expect, it, vi } from 'vitest';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { activeAnswer } from '../../../src-renderer/store/chat-send';
import { createStores } from '../../../src-renderer/store/create-stores';
import type { AnswerItem } from '../../../src-renderer/store/chat-items';
import { newAnswer } from '../../../src-renderer/store/chat-items';
import { BridgeDouble } from './bridge-double';

const conversation = {
  conversationId: 'c1',
  title: 'New chat',
  createdWallMs: 1,
  updatedWallMs: 1,
  numMessages: 0,
};
const forecast = {
  modelId: 'm',
  numPromptTokens: 10,
  promptLimit: 2047,
  contextTokens: 2048,
  numCachedTokens: 0,
  numCachedPages: 0,
  numDiskPages: 0,
  numDiskBytes: 0,
  estDiskReadMs: null,
  numNewTokens: 10,
  pageSize: 16,
  numDroppedMessages: 0,
  isSlotCold: false,
  estTtftMs: 12,
  estWaitMs: 0,
  numAhead: 0,
  refusal: null,
  remote: null,
};
const [timeline] = syntheticTimelines(1, { seed: 4 });
const done = (requestId: string): PushedEvent => ({
  name: 'request.done',
  payload: { requestId, finishReason: 'stop', messageId: 'm2' },
});
const finished = (requestId: string): PushedEvent => ({
  name: 'timeline.finished',
  payload: {
    timeline: { ...timeline!, requestId, finishReason: 'stop', clientTtftMs: null, clientE2eMs: null },
  },
});
const chunk = (requestId: string, text: string): PushedEvent => ({
  name: 'request.chunk',
  payload: { requestId, text, numTokens: 1 },
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const answer = (stores: ReturnType<typeof createStores>) => stores.chat.getState().items.at(-1) as AnswerItem;

function setup() {
  let resolveSend: (() => void) | null = null;
  const bridge = new BridgeDouble({
    'chat.createConversation': () => conversation,
    'chat.listConversations': () => [conversation],
    'chat.send': ({ requestId }) =>
      new Promise((resolve) => {
        resolveSend = () => resolve({ requestId: requestId!, userMessageId: 'm1', forecast });
      }),
    'chat.cancel': () => ({ wasRunning: true }),
    'timelines.reportClientTtft': () => ({ isRecorded: true }),
  });
  const stores = createStores(bridge);
  const answer = () => stores.chat.getState().items.at(-1) as AnswerItem;
  return { bridge, stores, answer, reply: () => resolveSend!() };
}

describe('chat store', () => {
  it('sends the request id it chose, so events that beat the reply land at once; reports the client TTFT and E2E once the timeline comes', async () => {
    const { bridge, stores, answer, reply } = setup();
    const sending = stores.chat.getState().send('Hello');
    await tick();
    const { sentAt, requestId } = answer();
    expect(bridge.inputsOf('chat.send')).toEqual([{ conversationId: 'c1', content: 'Hello', requestId }]);
    const id = requestId!;
    bridge.deliver(
      [{ name: 'request.queued', payload: { requestId: id, position: 2 } }, chunk(id, 'Hi')],
      sentAt! + 30,
    );
    expect(answer()).toMatchObject({ text: 'Hi', status: 'streaming', firstChunkAt: sentAt! + 30 });
    reply();
    await sending;
    expect(answer()).toMatchObject({ requestId: id, text: 'Hi', status: 'streaming' });
    bridge.deliver([chunk(id, ' there'), done(id)], sentAt! + 80);
    expect(answer()).toMatchObject({
      text: 'Hi there',
      status: 'done',
      finishReason: 'stop',
      clientTtftMs: 30,
    });
    expect(bridge.inputsOf('timelines.reportClientTtft')).toEqual([]);
    bridge.deliver([finished(id)], sentAt! + 81);
    expect(answer().timeline).toMatchObject({ clientTtftMs: 30, clientE2eMs: expect.closeTo(80, 9) });
    bridge.deliver([chunk(id, '')], sentAt! + 82);
    expect(bridge.inputsOf('timelines.reportClientTtft')).toEqual([
      { requestId: id, clientTtftMs: 30, clientE2eMs: expect.closeTo(80, 9) },
    ]);
    expect(stores.live.getState().timelines.at(-1)).toMatchObject({ requestId: id, clientTtftMs: 30 });
    expect(activeAnswer(stores.chat.getState())).toBeNull();
  });

  it('shows the queue position while waiting', async () => {
    const { bridge, stores, answer, reply } = setup();
    const sending = stores.chat.getState().send('Hello');
    await tick();
    reply();
    await sending;
    bridge.deliver([{ name: 'request.queued', payload: { requestId: answer().requestId!, position: 3 } }]);
    expect(answer()).toMatchObject({ status: 'waiting', queuePosition: 3 });
  });

  it('a Stop pressed before the service took the turn cancels as soon as its reply lands', async () => {
    const { bridge, stores, answer, reply } = setup();
    const sending = stores.chat.getState().send('Hello');
    await tick();
    await stores.chat.getState().stop();
    expect(bridge.inputsOf('chat.cancel')).toEqual([]);
    reply();
    await sending;
    expect(bridge.inputsOf('chat.cancel')).toEqual([{ requestId: answer().requestId }]);
  });

  it('ignores events of requests it did not send (other clients, the API, benchmarks)', async () => {
    const { bridge, stores, answer, reply } = setup();
    const sending = stores.chat.getState().send('Hello');
    await tick();
    bridge.deliver([chunk('someone-else', 'nope')]);
    reply();
    await sending;
    expect(answer().text).toBe('');
  });

  it('a refused send takes its rows away, gives the typed text back and says why', async () => {
    const bridge = new BridgeDouble({
      'chat.createConversation': () => conversation,
      'chat.listConversations': () => [conversation],
    });
    const stores = createStores(bridge);
    stores.chat.getState().setDraft('A very long letter');
    await stores.chat.getState().send();
    expect(stores.chat.getState()).toMatchObject({
      items: [],
      draft: 'A very long letter',
      sendError: 'chat.send not answered',
    });
  });

  it('a dropped connection ends the answer as interrupted, gives Send back, and reads the chat back on reconnect', async () => {
    const { bridge, stores, answer, reply } = setup();
    const sending = stores.chat.getState().send('Hello');
    await tick();
    reply();
    await sending;
    bridge.deliver([chunk(answer().requestId!, 'Half an ans')]);
    bridge.setConnection('lost');
    expect(answer()).toMatchObject({ status: 'done', finishReason: 'interrupted', text: 'Half an ans' });
    expect(activeAnswer(stores.chat.getState())).toBeNull();
    const numOpens = bridge.inputsOf('chat.getConversation').length;
    bridge.setConnection('open');
    await vi.waitFor(() => expect(bridge.inputsOf('chat.getConversation')).toHaveLength(numOpens + 1));
    expect(bridge.inputsOf('chat.getConversation').at(-1)).toEqual({ conversationId: 'c1' });
  });

  it('a refused first send leaves no empty chat behind: the one made for it is removed', async () => {
    const bridge = new BridgeDouble({
      'chat.createConversation': () => conversation,
      'chat.listConversations': () => [],
      'chat.deleteConversation': () => ({ isDeleted: true }),
    });
    const stores = createStores(bridge);
    await stores.chat.getState().send('A very long letter');
    expect(bridge.inputsOf('chat.deleteConversation')).toEqual([{ conversationId: 'c1' }]);
    expect(stores.chat.getState()).toMatchObject({ conversationId: null, conversations: [] });
  });

  it('a regenerated answer is shown as the newest version of its turn, named once stored', async () => {
    const bridge = new BridgeDouble({
      'chat.regenerate': ({ requestId }) => ({ requestId: requestId!, userMessageId: 'q1', forecast }),
      'chat.listConversations': () => [conversation],
      'timelines.reportClientTtft': () => ({ isRecorded: true }),
    });
    const stores = createStores(bridge);
    stores.chat.setState({
      conversationId: 'c1',
      items: [
        { kind: 'user', key: 'q1', messageId: 'q1', text: 'Hi', versionIds: ['q1'], version: 1 },
        {
          ...newAnswer(0),
          key: 'a1',
          messageId: 'a1',
          status: 'done',
          versionIds: ['a1'],
          version: 1,
        },
      ],
    });
    await stores.chat.getState().regenerate('a1');
    const id = answer(stores).requestId!;
    expect(bridge.inputsOf('chat.regenerate')).toEqual([
      { conversationId: 'c1', messageId: 'a1', requestId: id },
    ]);
    expect(answer(stores)).toMatchObject({ versionIds: ['a1', null], version: 2 });
    bridge.deliver([chunk(id, 'Hello'), done(id)]);
    expect(answer(stores)).toMatchObject({
      status: 'done',
      versionIds: ['a1', 'm2'],
      version: 2,
      messageId: 'm2',
    });
  });

  it('a forecast that fails clears the old figures and says why', async () => {
    const up = new BridgeDouble({ 'chat.forecast': () => forecast });
    const down = new BridgeDouble({}); // answers every call `unavailable`, as a host gone away would
    let isHostUp = true;
    const stores = createStores({
      kind: up.kind,
      call: (method, input) => (isHostUp ? up : down).call(method, input),
      subscribe: (listener) => up.subscribe(listener),
      onConnection: (listener) => up.onConnection(listener),
      exportUrl: () => null,
    });
    stores.chat.getState().setDraft('Shall we walk?');
    await vi.waitFor(() => expect(stores.chat.getState().forecast).toEqual(forecast));
    isHostUp = false;
    stores.chat.getState().setDraft('Shall we walk to Meryton?');
    await vi.waitFor(() => expect(stores.chat.getState().forecastError).toBe('chat.forecast not answered'));
    expect(stores.chat.getState().forecast).toBeNull();
    stores.dispose();
  });

  it('feeds finished timelines to the live window', () => {
    const { bridge, stores } = setup();
    bridge.deliver([{ name: 'timeline.finished', payload: { timeline: timeline! } }]);
    expect(stores.live.getState().timelines).toHaveLength(1);
  });
});
