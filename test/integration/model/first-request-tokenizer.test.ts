import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ModelCatalogue } from '../../../src-main/runtime/model/catalogue';
import { RevisionCache } from '../../../src-main/runtime/model/revisions';
import { routeRequest } from '../../../src-main/runtime/scheduler/route';
import type { RequestLimits } from '../../../src-main/runtime/scheduler/route';
import { PromptThreads } from '../../../src-main/runtime/tokenize/prompt-threads';
import { tokenizerFilesOfModel } from '../../../src-main/runtime/tokenize/tokenizer-files';
import { TextTokenizer } from '../../../src-main/runtime/tokenize/tokenizer';
import type { ChatTurn } from '../../../src-main/runtime/tokenize/tokenizer';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import { phi3Gguf } from '../../support/phi3-gguf';

const LIMITS: RequestLimits = {
  maxPromptTokens: 4096,
  maxOutputTokens: 64,
  defaultMaxTokens: 8,
  maxQueue: 4,
  defaultDeadlineMs: 60_000,
  defaultModel: null,
};

const MESSAGES: ChatTurn[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Hello there <|end|> — how are you today?' },
];

// A listed model's tokenizer is built in the listing thread (to check it) and the tokenizer
// thread (to encode); the serving thread holds only its facts, since a real vocabulary (128k
// tokens) takes hundreds of milliseconds to build and would hold every other request that long.
describe('the first request to a model from the models folder', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-gguf-first-request-'));
  const threads = new PromptThreads();
  afterAll(async () => {
    await threads.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Lists `models`, routes MESSAGES to its one model, and checks ids, decoding and where the tokenizer was built. */
  async function expectRoutedOffThread(
    models: string,
    tokenizerSource: string,
    isGguf: boolean,
  ): Promise<void> {
    const converted = mkdtempSync(path.join(root, 'converted-'));
    const catalogue = new ModelCatalogue(
      path.join(root, 'none'),
      models,
      new RevisionCache(null),
      null,
      converted,
    );
    const [entry] = await catalogue.refresh();
    expect(entry?.status).toBe('ok');
    const request = {
      requestId: 'first',
      modelId: entry!.modelId,
      prompt: { kind: 'chat' as const, messages: MESSAGES },
    };
    const routed = await routeRequest(request, catalogue, LIMITS, threads);
    const built = new TextTokenizer(tokenizerFilesOfModel(tokenizerSource, isGguf));
    expect(routed.promptIds).toEqual(built.encodePrompt(built.renderChat(MESSAGES)));
    const tokenizer = routed.model.folder.tokenizer;
    expect(tokenizer.decode(routed.promptIds)).toBe(built.decode(routed.promptIds));
    expect(tokenizer.vocabSize).toBe(built.vocabSize);
    expect(tokenizer.isBuiltHere).toBe(false);
  }

  it('is routed with the ids the built tokenizer gives, its GGUF tokenizer never built on the serving thread', async () => {
    const models = mkdtempSync(path.join(root, 'models-'));
    const gguf = phi3Gguf({
      outPath: path.join(models, 'phi3-tiny.gguf'),
      isQkvStacked: true,
      originalContext: null,
      attentionFactor: 1,
    });
    await expectRoutedOffThread(models, gguf, true);
  }, 60_000);

  it('is routed with the ids the built tokenizer gives, its folder tokenizer never built on the serving thread', async () => {
    const models = mkdtempSync(path.join(root, 'models-'));
    const bundled = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
    symlinkSync(bundled, path.join(models, 'linked-model'));
    await expectRoutedOffThread(models, bundled, false);
  }, 60_000);
});
