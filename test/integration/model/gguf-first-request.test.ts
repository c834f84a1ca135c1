import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
import { phi3Gguf } from '../../support/phi3-gguf';

const LIMITS: RequestLimits = {
  maxPromptTokens: 4096,
  maxOutputTokens: 64,
  defaultMaxTokens: 8,
  maxQueue: 4,
  defaultDeadlineMs: 60_000,
  defaultModel: null,
};

// A GGUF's tokenizer is built in the listing thread (to check it) and the tokenizer thread (to
// encode); the serving thread holds only its facts, since a real vocabulary (128k tokens) takes
// hundreds of milliseconds to build and would hold every other request that long.
describe('the first request to a GGUF model', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-gguf-first-request-'));
  const threads = new PromptThreads();
  afterAll(async () => {
    await threads.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('is routed with the ids the built tokenizer gives, and its tokenizer is never built on the serving thread', async () => {
    const models = path.join(root, 'models');
    const converted = path.join(root, 'converted');
    mkdirSync(models);
    mkdirSync(converted);
    const gguf = phi3Gguf({
      outPath: path.join(models, 'phi3-tiny.gguf'),
      isQkvStacked: true,
      originalContext: null,
      attentionFactor: 1,
    });
    const catalogue = new ModelCatalogue(
      path.join(root, 'none'),
      models,
      new RevisionCache(null),
      null,
      converted,
    );
    const [entry] = await catalogue.refresh();
    expect(entry?.status).toBe('ok');
    const messages: ChatTurn[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Hello there <|end|> — how are you today?' },
    ];
    const routed = await routeRequest(
      { requestId: 'first', modelId: entry!.modelId, prompt: { kind: 'chat', messages } },
      catalogue,
      LIMITS,
      threads,
    );
    const built = new TextTokenizer(tokenizerFilesOfModel(gguf, true));
    expect(routed.promptIds).toEqual(built.encodePrompt(built.renderChat(messages)));
    const tokenizer = routed.model.folder.tokenizer;
    expect(tokenizer.decode(routed.promptIds)).toBe(built.decode(routed.promptIds));
    expect(tokenizer.vocabSize).toBe(built.vocabSize);
    expect(tokenizer.isBuiltHere).toBe(false);
  }, 60_000);
});
