import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEMPLATE_LIMITS } from '../../../src-main/runtime/tokenize/chat-template';
import { TextTokenizer } from '../../../src-main/runtime/tokenize/tokenizer';
import type { CatalogueModel, ModelCatalogue } from '../../../src-main/runtime/model/catalogue';
import type { ChatTurn } from '../../../src-main/runtime/tokenize/tokenizer';
import { RequestRejected, routeRequest } from '../../../src-main/runtime/scheduler/route';
import type { RequestLimits, RoutedRequest } from '../../../src-main/runtime/scheduler/route';
import { PromptThreads } from '../../../src-main/runtime/tokenize/prompt-threads';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

const FOLDER = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
const readJson = (name: string) =>
  JSON.parse(readFileSync(path.join(FOLDER, name), 'utf8')) as Record<string, unknown>;
const tokenizerConfig = readJson('tokenizer_config.json');
const tokenizerJson = readJson('tokenizer.json');

/** Over the serving thread's steps at once (a range's items count), well within a whole render's. */
const LONG_LOOP = `{% for i in range(${TEMPLATE_LIMITS.inlineSteps}) %}{% endfor %}`;

/** The bundled model's folder with `prefix` put before its chat template, as a catalogue model. */
function modelWith(modelId: string, prefix: string): CatalogueModel {
  const config = { ...tokenizerConfig, chat_template: prefix + String(tokenizerConfig['chat_template']) };
  const tokenizer = new TextTokenizer({ tokenizerJson, tokenizerConfig: config });
  return {
    modelId,
    folder: { folder: FOLDER, format: 'onnx', tokenizer, shape: { maxPositions: 2_048 } },
    revisions: { tokenizerRevision: modelId },
  } as unknown as CatalogueModel;
}

const models = new Map([
  ['fast', modelWith('fast', '')],
  ['slow', modelWith('slow', LONG_LOOP)],
  ['failing', modelWith('failing', `${LONG_LOOP}{{ raise_exception('this template refuses every chat') }}`)],
]);
const catalogue = {
  resolve: (id: string) => models.get(id) ?? new Error(`no model ${id}`),
  defaultModelId: () => 'fast',
} as unknown as ModelCatalogue;
const limits: RequestLimits = {
  maxPromptTokens: 1_024,
  maxOutputTokens: 64,
  defaultMaxTokens: 4,
  maxQueue: 8,
  defaultDeadlineMs: null,
  defaultModel: null,
};
const messages: ChatTurn[] = [{ role: 'user', content: 'Hello there.' }];
const route = (modelId: string) =>
  routeRequest(
    { requestId: modelId, modelId, prompt: { kind: 'chat', messages } },
    catalogue,
    limits,
    threads,
  );
const threads = new PromptThreads();

describe('chat templates off the serving thread', () => {
  afterAll(() => threads.close());

  it("renders a slow template in its thread while another model's request is routed at once", async () => {
    const finished: string[] = [];
    const slow = route('slow');
    expect(slow).toBeInstanceOf(Promise);
    const slowDone = (slow as Promise<RoutedRequest>).then((routed) => (finished.push('slow'), routed));
    // Inline when its render fits the serving thread's 10 ms; on a loaded machine a cold first
    // render may overrun and go to the thread too: either way it must not queue behind `slow`.
    const fast = await Promise.resolve(route('fast')).then((routed) => (finished.push('fast'), routed));
    const slowRouted = await slowDone;
    expect(finished).toEqual(['fast', 'slow']);
    // The thread's render is the serving thread's render: the same ids, the loop printing nothing.
    const slowTokenizer = models.get('slow')!.folder.tokenizer;
    expect(slowRouted.promptIds).toEqual(slowTokenizer.encodePrompt(slowTokenizer.renderChat(messages)));
    expect(slowRouted.promptIds).toEqual(fast.promptIds);
  });

  it("refuses a request whose template fails in the thread, with the template's reason", async () => {
    const failing = route('failing');
    expect(failing).toBeInstanceOf(Promise);
    const error = await (failing as Promise<RoutedRequest>).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestRejected);
    expect((error as RequestRejected).code).toBe('invalid_input');
    expect((error as Error).message).toBe('chat template raised: this template refuses every chat');
  });
});
