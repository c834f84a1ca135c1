import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { postJson } from './exchange';
import type { Tally } from './tally';

/** What a phase's load works with: the host, the models, and where its answers are counted. */
export interface LoadContext {
  url: string;
  port: number;
  smallModel: string;
  bigVocabModel: string;
  /** The host's models folder (a phase may drop files there). */
  modelsDir: string;
  tally: Tally;
}

/** A running load: stop() ends its loops and resolves once the last exchange is answered. */
export interface RunningLoad {
  stop(): Promise<void>;
}

/** `numClients` loops each running `step` back to back until stopped. */
export function loops(numClients: number, step: (client: number) => Promise<void>): RunningLoad {
  let isStopped = false;
  const running = Array.from({ length: numClients }, async (_, client) => {
    while (!isStopped) await step(client);
  });
  return {
    stop: async () => {
      isStopped = true;
      await Promise.all(running);
    },
  };
}

/** Counts an answer under `what: http N`; statuses in `expected` are fine, others are surprises. */
export async function answered(
  ctx: LoadContext,
  what: string,
  expected: number[],
  request: Promise<{ status: number; text: string }>,
) {
  const answer = await request;
  ctx.tally.count(
    `${what}: http ${answer.status}`,
    expected.includes(answer.status),
    answer.text.slice(0, 200),
  );
}

/** Two clients asking the big-vocabulary model for top_k = 100,000 (the documented maximum) samples. */
export function bigVocabTopK(ctx: LoadContext): RunningLoad {
  return loops(2, () =>
    answered(
      ctx,
      'top_k=100000, temperature 1, 3 tokens',
      [200, 429],
      postJson(`${ctx.url}v1/chat/completions`, {
        model: ctx.bigVocabModel,
        messages: [{ role: 'user', content: 'Tell me a story.' }],
        max_tokens: 3,
        top_k: 100_000,
        temperature: 1,
      }),
    ),
  );
}

/**
 * 50 `/api/events` clients that never read (a socket that stops reading after the headers),
 * each replaced when the host cuts it off (a reconnecting client that still never reads).
 */
export function neverReadingEventClients(ctx: LoadContext): RunningLoad {
  const sockets = new Set<Socket>();
  let isStopped = false;
  const open = (): void => {
    const socket = connect(ctx.port, '127.0.0.1');
    sockets.add(socket);
    socket.once('data', () => socket.pause());
    socket.on('error', () => undefined);
    socket.once('close', () => {
      sockets.delete(socket);
      if (isStopped) return;
      ctx.tally.count('never-reading event client: cut off by the host');
      open();
    });
    socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\n\r\n`);
  };
  for (let i = 0; i < 50; i++) open();
  // A paused socket never sees the host's close (its end waits behind the data not read): an
  // empty line, which HTTP lets a client send between requests, is answered with a reset by a
  // closed connection, so a cut-off shows up as an error and the client is replaced.
  const poke = setInterval(() => {
    for (const socket of sockets) socket.write('\r\n');
  }, 1_000);
  return {
    stop: async () => {
      isStopped = true;
      clearInterval(poke);
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** 30,000 one-character messages in one body (~0.9 MB): template work per message, under the body limit. */
const MANY_MESSAGES = (model: string) =>
  JSON.stringify({
    model,
    messages: Array.from({ length: 30_000 }, () => ({ role: 'user', content: 'x' })),
    max_tokens: 1,
  });

/** A body nested 500,000 arrays deep (~1 MB of valid JSON). */
const DEEP_BODY = (model: string) =>
  `{"model": "${model}", "messages": ${'['.repeat(500_000)}${']'.repeat(500_000)}}`;

/** Four clients re-sending heavy bodies: 30,000 tiny messages, and 500k-deep JSON, in turn. */
export function heavyTemplateBodies(ctx: LoadContext): RunningLoad {
  const many = MANY_MESSAGES(ctx.smallModel);
  const deep = DEEP_BODY(ctx.smallModel);
  let turn = 0;
  return loops(4, () => {
    const isDeep = turn++ % 2 === 1;
    return answered(
      ctx,
      isDeep ? '500,000-deep JSON body' : '30,000 one-character messages',
      [400],
      postJson(`${ctx.url}v1/chat/completions`, isDeep ? deep : many),
    );
  });
}

/** The K/V budget for the over-budget phase: 1 MiB (the probe's K/V fits; a 1,200-token prompt's never does). */
export const TINY_KV_BUDGET_BYTES = 1024 * 1024;

/**
 * A client sending a prompt whose K/V can never fit the (lowered) K/V budget: it must be refused
 * at once, never wait at the head of the queue blocking everyone behind it.
 */
export function overBudgetPrompt(ctx: LoadContext): RunningLoad {
  const prompt =
    'It is a truth universally acknowledged, that a single man must be in want of a wife. '.repeat(60);
  return loops(1, () =>
    answered(
      ctx,
      'prompt whose K/V can never fit the budget',
      [400, 429, 503],
      postJson(`${ctx.url}v1/completions`, {
        model: ctx.smallModel,
        prompt,
        max_tokens: 4,
        first_frame: { deadline_ms: 20_000 },
      }),
    ),
  );
}
