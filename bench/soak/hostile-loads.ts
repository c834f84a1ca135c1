import { rmSync } from 'node:fs';
import { exchange, postJson } from './exchange';
import { writeHugeArrayGguf, writeLongTokenGguf } from './hostile-files';
import { MISBEHAVIOURS, startMisbehavingRemote } from './misbehaving-remote';
import type { LoadContext, RunningLoad } from './phase-loads';
import { answered, loops } from './phase-loads';

/**
 * Drops a hostile GGUF (written by `write`) into the models folder, then two clients list the
 * models back to back (the app's `models.list` and `/v1/models`); the file is removed at stop.
 */
export function hostileGguf(write: (modelsDir: string) => string): (ctx: LoadContext) => RunningLoad {
  return (ctx) => {
    const folder = write(ctx.modelsDir);
    const load = loops(2, (client) =>
      client === 0
        ? answered(ctx, 'models.list', [200], postJson(`${ctx.url}api/call/models.list`, {}))
        : answered(ctx, 'GET /v1/models', [200], exchange(`${ctx.url}v1/models`)),
    );
    return {
      stop: async () => {
        await load.stop();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  };
}

/** A huge-array GGUF (see hostileGguf). */
export const hugeArrayGguf = hostileGguf(writeHugeArrayGguf);
/** A long-token GGUF (see hostileGguf). */
export const longTokenGguf = hostileGguf(writeLongTokenGguf);

/** Two clients chatting with the slow-template model (written before the host started). */
export function slowTemplateChats(ctx: LoadContext): RunningLoad {
  return loops(2, () =>
    answered(
      ctx,
      'chat on the slow-template model',
      [200, 400, 422, 429],
      postJson(`${ctx.url}v1/chat/completions`, {
        model: 'slow-template',
        messages: [{ role: 'user', content: 'Hello there.' }],
        max_tokens: 1,
      }),
    ),
  );
}

/** How long a remote turn may run before the host cuts it (chat.send's deadlineMs). */
const REMOTE_DEADLINE_MS = 3_000;

/**
 * Starts the misbehaving remote on 127.0.0.1, registers it the way the app does
 * (`endpoints.add`), and has one client per misbehaviour start a chat turn at it each second
 * (`chat.send` in a fresh conversation, cut after REMOTE_DEADLINE_MS: remote models are the
 * app's chats, not `/v1`'s); at stop the endpoint is removed and the server closed.
 */
export function misbehavingRemoteChats(ctx: LoadContext): RunningLoad {
  const started = (async () => {
    const remote = await startMisbehavingRemote();
    const added = await postJson(`${ctx.url}api/call/endpoints.add`, {
      name: 'misbehaving',
      baseUrl: remote.baseUrl,
      engine: 'openai',
      saveUnreachable: true,
    });
    const endpoint = JSON.parse(added.text) as { value?: { endpointId: string } };
    if (!endpoint.value) throw new Error(`endpoints.add: ${added.text.slice(0, 300)}`);
    return { remote, endpointId: endpoint.value.endpointId };
  })();
  const load = loops(MISBEHAVIOURS.length, async (client) => {
    const { endpointId } = await started;
    const behaviour = MISBEHAVIOURS[client]!;
    const created = await postJson(`${ctx.url}api/call/chat.createConversation`, { title: behaviour });
    const { value } = JSON.parse(created.text) as { value?: { conversationId: string } };
    if (!value) throw new Error(`chat.createConversation: ${created.text.slice(0, 300)}`);
    await answered(
      ctx,
      `chat.send to the remote's ${behaviour}`,
      [200],
      postJson(`${ctx.url}api/call/chat.send`, {
        conversationId: value.conversationId,
        content: 'Hello there.',
        modelId: `@${endpointId}/${behaviour}`,
        deadlineMs: REMOTE_DEADLINE_MS,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  });
  return {
    stop: async () => {
      await load.stop();
      // Let the last turns reach their deadline before their server goes away.
      await new Promise((resolve) => setTimeout(resolve, REMOTE_DEADLINE_MS));
      const { remote, endpointId } = await started;
      await postJson(`${ctx.url}api/call/endpoints.remove`, { endpointId });
      await remote.close();
    },
  };
}
