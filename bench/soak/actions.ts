import type { Tally } from './tally';
import { exchange, hangUpAfterFirstChunk, postJson, rawStatus } from './exchange';
import {
  BAD_REQUEST_LINES,
  CHAR_BOUND_PROMPT,
  FORMULA_NAMES,
  hostileTrace,
  NEAR_BODY_LIMIT_PROMPT,
  proseOf,
} from './inputs';

/** What every action works with: the host, its model, the tally, and a client's own conversation. */
export interface SoakContext {
  url: string;
  port: number;
  modelId: string;
  tally: Tally;
  conversationId: string;
  /** A counter for unique names. */
  next(): number;
}

/** One kind of exchange in the mix, and how often it is drawn relative to the others. */
export interface SoakAction {
  name: string;
  weight: number;
  run(ctx: SoakContext): Promise<void>;
}

/** Counts an answer: `expected` statuses are fine (a refusal with a reason is the point), others are surprises. */
function expect(ctx: SoakContext, name: string, status: number, expected: number[], detail = ''): void {
  const kind = status === 0 ? `${name}: no answer` : `${name}: http ${status}`;
  ctx.tally.count(kind, expected.includes(status), detail);
}

const short = (ctx: SoakContext, extra: Record<string, unknown> = {}) => ({
  model: ctx.modelId,
  messages: [{ role: 'user', content: `Say something about the weather, number ${ctx.next()}.` }],
  max_tokens: 16,
  temperature: 0.7,
  ...extra,
});

/** Valid load, client disconnects and hostile inputs, weighted so most traffic is ordinary. */
export const SOAK_ACTIONS: SoakAction[] = [
  {
    name: 'page load',
    weight: 6,
    run: async (ctx) => expect(ctx, 'page load', (await exchange(ctx.url)).status, [200]),
  },
  {
    name: 'status',
    weight: 3,
    run: async (ctx) =>
      expect(ctx, 'status', (await postJson(`${ctx.url}api/call/app.status`, {})).status, [200]),
  },
  {
    name: 'chat completion',
    weight: 10,
    run: async (ctx) => {
      const answer = await postJson(`${ctx.url}v1/chat/completions`, short(ctx));
      expect(ctx, 'chat completion', answer.status, [200, 429], answer.text);
    },
  },
  {
    name: 'streamed chat',
    weight: 6,
    run: async (ctx) => {
      const answer = await postJson(`${ctx.url}v1/chat/completions`, short(ctx, { stream: true }));
      const isComplete = answer.status !== 200 || answer.text.trimEnd().endsWith('data: [DONE]');
      expect(ctx, 'streamed chat', isComplete ? answer.status : -1, [200, 429], answer.text.slice(-200));
    },
  },
  {
    name: 'chat.send',
    weight: 4,
    run: async (ctx) => {
      const answer = await postJson(`${ctx.url}api/call/chat.send`, {
        conversationId: ctx.conversationId,
        content: `Tell me about Mr. Darcy, part ${ctx.next()}.`,
        sampling: { maxTokens: 12 },
      });
      expect(ctx, 'chat.send', answer.status, [200, 429], answer.text);
    },
  },
  {
    name: 'csv export',
    weight: 1,
    run: async (ctx) => {
      const answer = await exchange(`${ctx.url}api/export.csv`);
      // A cell a spreadsheet would run starts right after a separator or a quote.
      const isSafe = !/(^|,)"?[=+@\t\r]/m.test(answer.text.replace(/\r\n/g, '\n'));
      expect(ctx, 'csv export', isSafe ? answer.status : -2, [200], 'a formula cell was not neutralised');
    },
  },
  {
    name: 'hang up mid-stream',
    weight: 3,
    run: async (ctx) => {
      const outcome = await hangUpAfterFirstChunk(
        `${ctx.url}v1/chat/completions`,
        short(ctx, { stream: true, max_tokens: 64 }),
      );
      ctx.tally.count(
        `hang up mid-stream: ${outcome === 'hung up' ? 'hung up' : `http ${outcome}`}`,
        outcome === 'hung up' || outcome === 429,
      );
    },
  },
  {
    name: 'hang up the event stream',
    weight: 1,
    run: async (ctx) => {
      const abort = new AbortController();
      const response = await fetch(`${ctx.url}api/events`, { signal: abort.signal }).catch(() => null);
      await response?.body?.getReader().read();
      abort.abort();
      ctx.tally.count(
        `hang up the event stream: ${response ? `http ${response.status}` : 'no answer'}`,
        response?.status === 200,
      );
    },
  },
  {
    name: 'bad request line',
    weight: 2,
    run: async (ctx) => {
      const line = BAD_REQUEST_LINES[ctx.next() % BAD_REQUEST_LINES.length]!;
      expect(
        ctx,
        'bad request line',
        await rawStatus(ctx.port, `${line}\r\nHost: 127.0.0.1:${ctx.port}\r\n\r\n`),
        [400],
        line,
      );
    },
  },
  {
    name: 'prompt near the body limit',
    weight: 1,
    run: async (ctx) => {
      const answer = await postJson(`${ctx.url}v1/completions`, {
        model: ctx.modelId,
        prompt: NEAR_BODY_LIMIT_PROMPT,
      });
      expect(ctx, 'prompt near the body limit', answer.status, [400], answer.text);
    },
  },
  {
    name: 'prompt at the character bound',
    weight: 1,
    run: async (ctx) => {
      const answer = await postJson(`${ctx.url}v1/completions`, {
        model: ctx.modelId,
        prompt: CHAR_BOUND_PROMPT,
      });
      expect(ctx, 'prompt at the character bound', answer.status, [400, 429], answer.text);
    },
  },
  {
    name: '200,000-character chat message',
    weight: 1,
    run: async (ctx) => {
      const answer = await postJson(`${ctx.url}api/call/chat.send`, {
        conversationId: ctx.conversationId,
        content: proseOf(200_000),
      });
      expect(ctx, '200,000-character chat message', answer.status, [200, 400, 429], answer.text);
    },
  },
  {
    name: 'body over the limit',
    weight: 1,
    run: async (ctx) => {
      const answer = await postJson(`${ctx.url}v1/chat/completions`, {
        model: ctx.modelId,
        pad: 'x'.repeat(2 * 1024 * 1024),
      });
      expect(ctx, 'body over the limit', answer.status, [413], answer.text);
    },
  },
  {
    name: 'not JSON',
    weight: 1,
    run: async (ctx) =>
      expect(ctx, 'not JSON', (await postJson(`${ctx.url}v1/chat/completions`, '{"model": ')).status, [400]),
  },
  {
    name: 'formula as a model name',
    weight: 1,
    run: async (ctx) => {
      const model = FORMULA_NAMES[ctx.next() % FORMULA_NAMES.length]!;
      const answer = await postJson(`${ctx.url}v1/chat/completions`, { ...short(ctx), model });
      expect(ctx, 'formula as a model name', answer.status, [404], answer.text);
    },
  },
  {
    name: 'hostile trace import',
    weight: 1,
    run: async (ctx) => {
      const trace = hostileTrace(20, `soak-${ctx.next()}`);
      const answer = await exchange(`${ctx.url}api/traces/import?fileName=hostile.jsonl&skipBadLines=true`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-ndjson' },
        body: trace.text,
      });
      const value =
        answer.status === 200 ? (JSON.parse(answer.text) as { value: { numImported: number } }).value : null;
      if (value) ctx.tally.numImported += value.numImported;
      expect(
        ctx,
        'hostile trace import',
        value?.numImported === trace.numGood ? answer.status : -3,
        [200],
        answer.text.slice(0, 300),
      );
    },
  },
];
