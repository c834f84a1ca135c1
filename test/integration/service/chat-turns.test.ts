import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import type { MethodInput, MethodName, MethodOutput } from '../../../src-main/service/contract/methods';
import type { Core } from '../../../src-main/service/core-options';
import { finishedTimelineOf } from '../../support/chat-turn';
import { createTestCore } from '../../support/core';

const SENTENCE =
  'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. ';

describe('chat turns: versions, branches, settings, context fitting, export and import', () => {
  let dataDir: string;
  let core: Core;
  const call = async <M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> => {
    const result = await core.service.call(method, input);
    if (!result.ok) throw new Error(`${method}: ${result.error.code} ${result.error.message}`);
    return result.value;
  };
  /** Starts a turn (send, regenerate, edit) and waits for its request.done. */
  const turn = async <M extends 'chat.send' | 'chat.regenerate' | 'chat.edit'>(
    method: M,
    input: MethodInput<M>,
  ) => {
    let resolveDone: (event: PushedEvent) => void = () => undefined;
    const done = new Promise<PushedEvent>((resolve) => (resolveDone = resolve));
    const seen: PushedEvent[] = [];
    let requestId = '';
    const off = core.service.subscribe((event) => {
      seen.push(event);
      if (event.name === 'request.done' && event.payload.requestId === requestId) resolveDone(event);
    });
    const started = (await call(method, input)) as MethodOutput<'chat.send'>;
    requestId = started.requestId;
    const early = seen.find((e) => e.name === 'request.done' && e.payload.requestId === requestId);
    if (early) resolveDone(early);
    const event = await done;
    off();
    // The timeline follows its request.done in the same push (the remote engine's precedes it).
    const timeline = finishedTimelineOf(seen, requestId);
    return { started, done: event as Extract<PushedEvent, { name: 'request.done' }>, timeline };
  };
  const newChat = async (settings?: MethodInput<'chat.createConversation'>['settings']) =>
    (await call('chat.createConversation', settings ? { settings } : {})).conversationId;
  const quick = {
    systemPrompt: '',
    modelId: null,
    sampling: { temperature: 0, maxTokens: 4 },
    contextOverflow: 'drop-oldest' as const,
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-chat-turns-'));
    core = await createTestCore(dataDir);
  });
  afterAll(async () => {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a message longer than the context with its token count, stores nothing, and the chat goes on', async () => {
    const conversationId = await newChat(quick);
    await turn('chat.send', { conversationId, content: 'Good morning!' });
    const huge = SENTENCE.repeat(120);
    const forecast = await call('chat.forecast', { conversationId, content: huge });
    expect(forecast.numPromptTokens).toBeGreaterThan(forecast.promptLimit);
    expect(forecast.refusal).toMatch(/tokens; the model holds at most/);
    const refused = await core.service.call('chat.send', { conversationId, content: huge });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    if (!refused.ok) expect(refused.error.message).toMatch(/^This message is [\d,]+ tokens/);
    expect((await call('chat.getConversation', { conversationId })).messages).toHaveLength(2);
    const { done, timeline } = await turn('chat.send', { conversationId, content: 'Shall we walk?' });
    expect([done.payload.finishReason, timeline.finishReason]).toEqual(['length', 'length']);
    expect((await call('chat.getConversation', { conversationId })).messages).toHaveLength(4);
  });

  it('refuses text with a lone surrogate with its position, stores nothing, and keeps a complete pair exactly', async () => {
    const conversationId = await newChat(quick);
    const lone = 'x\ud800y';
    const sends = [
      core.service.call('chat.send', { conversationId, content: lone }),
      core.service.call('chat.forecast', { conversationId, content: lone }),
      core.service.call('chat.renameConversation', { conversationId, title: lone }),
      core.service.call('chat.updateSettings', {
        conversationId,
        settings: { ...quick, systemPrompt: lone },
      }),
    ];
    for (const refused of await Promise.all(sends)) {
      expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      if (!refused.ok)
        expect(refused.error.message).toMatch(
          /has a broken character at position 2 \(a lone UTF-16 surrogate, \\ud800\); only well-formed Unicode text is accepted/,
        );
    }
    expect((await call('chat.getConversation', { conversationId })).messages).toHaveLength(0);
    await turn('chat.send', { conversationId, content: 'x\ud83c\udf89y' });
    const [question] = (await call('chat.getConversation', { conversationId })).messages;
    expect(question!.content).toBe('x🎉y');
  });

  it('drops the oldest turns when a turn would not fit, and says how many', async () => {
    const conversationId = await newChat(quick);
    const long = SENTENCE.repeat(25);
    const first = await call('chat.forecast', { conversationId, content: long });
    const numTurnsToFill = Math.ceil(first.contextTokens / first.numPromptTokens) + 1;
    let last = first;
    for (let i = 0; i < numTurnsToFill; i++) {
      const { started } = await turn('chat.send', { conversationId, content: long });
      last = started.forecast;
    }
    expect(last.numDroppedMessages).toBeGreaterThan(0);
    expect(last.numPromptTokens).toBeLessThanOrEqual(last.promptLimit);
    const view = await call('chat.getConversation', { conversationId });
    expect(view.messages.at(-1)!.numDroppedMessages).toBe(last.numDroppedMessages);
    expect(view.messages).toHaveLength(numTurnsToFill * 2);
    await call('chat.updateSettings', { conversationId, settings: { ...quick, contextOverflow: 'refuse' } });
    const refused = await core.service.call('chat.send', { conversationId, content: long });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/conversation is [\d,]+ tokens/);
  });

  it('two sends at once on one conversation: the second is planned again after the first and continues it', async () => {
    const conversationId = await newChat(quick);
    const [first, second] = await Promise.all([
      turn('chat.send', { conversationId, content: 'Who is Mr Darcy?' }),
      turn('chat.send', { conversationId, content: 'And Mr Bingley?' }),
    ]);
    const view = await call('chat.getConversation', { conversationId });
    expect(view.messages.map((m) => [m.role, m.content.slice(0, 15)])).toEqual([
      ['user', 'Who is Mr Darcy'],
      ['user', 'And Mr Bingley?'],
      ['assistant', second.timeline.requestId === second.started.requestId ? expect.any(String) : ''],
    ]);
    expect(view.messages[1]!.parentId).toBe(first.started.userMessageId);
    expect(view.messages[1]!.messageId).toBe(second.started.userMessageId);
    expect(view.messages[0]!.versionIds).toHaveLength(1);
  });

  it('a chat that sets no sampling samples at temperature 0.7 / top-p 0.95, so Regenerate draws a different answer', async () => {
    const conversationId = await newChat({ ...quick, sampling: { maxTokens: 24, ignoreEos: true } });
    expect((await call('chat.defaults', {})).effective).toMatchObject({ temperature: 0.7, topP: 0.95 });
    const { done: first } = await turn('chat.send', { conversationId, content: 'Who is Mr Darcy?' });
    const texts = new Set<string>();
    for (let i = 0; i < 3; i++)
      await turn('chat.regenerate', { conversationId, messageId: first.payload.messageId! });
    const view = await call('chat.getConversation', { conversationId });
    for (const messageId of view.messages.at(-1)!.versionIds) {
      const version = await call('chat.selectVersion', { conversationId, messageId });
      texts.add(version.messages.at(-1)!.content);
    }
    // Greedy decoding would give one text four times; 24 sampled tokens repeat with negligible odds.
    expect(texts.size).toBeGreaterThan(1);
  });

  it('regenerating the last answer makes version 2 of 2; both versions stay browsable', async () => {
    const conversationId = await newChat({
      ...quick,
      sampling: { temperature: 1, maxTokens: 6, ignoreEos: true },
    });
    const { done: first } = await turn('chat.send', { conversationId, content: 'Who is Mr Darcy?' });
    const { started, done: second } = await turn('chat.regenerate', {
      conversationId,
      messageId: first.payload.messageId!,
    });
    let view = await call('chat.getConversation', { conversationId });
    const answer = view.messages.at(-1)!;
    expect(answer.messageId).toBe(second.payload.messageId);
    expect([answer.version, answer.versionIds.length]).toEqual([2, 2]);
    expect(started.userMessageId).toBe(view.messages[0]!.messageId);
    expect(answer.finishReason).toBe('length');
    view = await call('chat.selectVersion', { conversationId, messageId: answer.versionIds[0]! });
    expect(view.messages.at(-1)!.messageId).toBe(first.payload.messageId);
    expect(view.messages.at(-1)!.version).toBe(1);
  });

  it('editing a question starts a branch and keeps the old one', async () => {
    const conversationId = await newChat(quick);
    const { done: a1 } = await turn('chat.send', { conversationId, content: 'Describe Longbourn.' });
    await turn('chat.send', { conversationId, content: 'And Netherfield?' });
    const before = await call('chat.getConversation', { conversationId });
    const { started } = await turn('chat.edit', {
      conversationId,
      messageId: before.messages[2]!.messageId,
      content: 'And Pemberley?',
    });
    const after = await call('chat.getConversation', { conversationId });
    expect(after.messages.map((m) => m.content.slice(0, 14))).toEqual([
      'Describe Longb',
      after.messages[1]!.content.slice(0, 14),
      'And Pemberley?',
      after.messages[3]!.content.slice(0, 14),
    ]);
    expect(after.messages[1]!.messageId).toBe(a1.payload.messageId);
    expect(after.messages[2]).toMatchObject({
      messageId: started.userMessageId,
      version: 2,
      versionIds: [before.messages[2]!.messageId, started.userMessageId],
    });
    const old = await call('chat.selectVersion', {
      conversationId,
      messageId: before.messages[2]!.messageId,
    });
    expect(old.messages.map((m) => m.messageId)).toEqual(before.messages.map((m) => m.messageId));
  });

  it('keeps settings per conversation; the system prompt reaches the prompt; defaults seed new chats', async () => {
    const plain = await newChat(quick);
    const withSystem = await newChat({
      ...quick,
      systemPrompt: 'You are Mr Collins, and you are very long-winded.',
    });
    const a = await call('chat.forecast', { conversationId: plain, content: 'Hello' });
    const b = await call('chat.forecast', { conversationId: withSystem, content: 'Hello' });
    expect(b.numPromptTokens).toBeGreaterThan(a.numPromptTokens);
    expect(
      (await call('chat.getConversation', { conversationId: withSystem })).settings.systemPrompt,
    ).toMatch(/Collins/);
    await call('chat.setDefaults', { settings: { ...quick, systemPrompt: 'Be brief.' } });
    const fresh = await call('chat.getConversation', { conversationId: await newChat() });
    expect(fresh.settings).toMatchObject({ systemPrompt: 'Be brief.', sampling: { maxTokens: 4 } });
    const defaults = await call('chat.defaults', {});
    expect(defaults.effective.maxTokens).toBeGreaterThan(0);
    expect(defaults.presets.some((p) => p.isBuiltIn)).toBe(true);
    await call('chat.setDefaults', { settings: quick });
  });

  it('renames and finds conversations by title and by message text', async () => {
    const conversationId = await newChat(quick);
    await turn('chat.send', { conversationId, content: 'Tell me of Rosings Park, please.' });
    await call('chat.renameConversation', { conversationId, title: 'Lady Catherine' });
    const byTitle = await call('chat.search', { query: 'lady cath' });
    expect(byTitle.map((h) => h.conversation.conversationId)).toContain(conversationId);
    const byText = await call('chat.search', { query: 'rosings' });
    expect(byText.find((h) => h.conversation.conversationId === conversationId)?.snippet).toMatch(
      /Rosings Park/,
    );
    expect(await call('chat.search', { query: '100%_nothing' })).toEqual([]);
  });

  it('exports JSON with timelines and Markdown; imports the JSON as a new conversation; refuses bad files with a reason', async () => {
    const conversationId = await newChat({ ...quick, systemPrompt: 'Be kind.' });
    const { done } = await turn('chat.send', { conversationId, content: 'Who is Jane?' });
    await turn('chat.regenerate', { conversationId, messageId: done.payload.messageId! });
    const json = await call('chat.export', { conversationId, format: 'json' });
    expect(json.fileName).toMatch(/\.json$/);
    const data = JSON.parse(json.text) as { messages: { timeline: unknown }[] };
    expect(data.messages).toHaveLength(3);
    expect(data.messages.filter((m) => m.timeline !== null)).toHaveLength(2);
    const markdown = await call('chat.export', { conversationId, format: 'markdown' });
    expect(markdown.text).toMatch(/## You\n\nWho is Jane\?/);
    const imported = await call('chat.import', { fileName: json.fileName, text: json.text });
    expect(imported.conversationId).not.toBe(conversationId);
    const original = await call('chat.getConversation', { conversationId });
    const copy = await call('chat.getConversation', { conversationId: imported.conversationId });
    expect(copy.messages.map((m) => [m.role, m.content, m.version, m.versionIds.length])).toEqual(
      original.messages.map((m) => [m.role, m.content, m.version, m.versionIds.length]),
    );
    expect(copy.messages[1]!.timeline?.requestId).toBe(original.messages[1]!.timeline?.requestId);
    expect(copy.settings.systemPrompt).toBe('Be kind.');
    const before = (await call('chat.listConversations', {})).length;
    for (const [text, reason] of [
      ['not json', /is not JSON/],
      ['{"format":"something-else"}', /not a First Frame conversation export/],
      [json.text.replace(/"parentId": null/, '"parentId": "nowhere"'), /does not come before it/],
      [
        json.text.replace(/"content": "/, '"content": "\\ud800'),
        /messages\.0\.content: has a broken character at position 1 \(a lone UTF-16 surrogate/,
      ],
      [
        `{"format": "x", "messages": ${'['.repeat(500_000)}${']'.repeat(500_000)}}`,
        /^bad\.json is nested deeper than 64 levels; it was refused before parsing$/,
      ],
    ] as const) {
      const result = await core.service.call('chat.import', { fileName: 'bad.json', text });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toMatch(reason);
    }
    expect((await call('chat.listConversations', {})).length).toBe(before);
  });
});
