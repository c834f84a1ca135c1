import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { BUNDLED_MODEL_ID, BUNDLED_MODEL_REF, BUNDLED_MODELS_DIR } from '../../support/models';
import { createTestRuntime, generate } from '../../support/runtime';

const REFERENCE = JSON.parse(
  readFileSync(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID, 'greedy-reference.json'), 'utf8'),
) as { cases: Array<{ prompt: number[]; tokens: number[] }> };

// The whole engine (worker, step run ahead, decode bursts, greedy's one-pass pick, token output) against the
// ids torch produced at training time: any change on the hot path must leave them as they are.
describe('greedy decoding through the engine', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ bundledModelsDir: BUNDLED_MODELS_DIR, isPaging: false });
  });
  afterAll(() => runtime.close());
  afterEach(() => vi.unstubAllEnvs());

  // Bursts on (the default: after the first timed step a job runs several decode steps) and off.
  it.each(['on', 'off'])(
    'gives the greedy tokens recorded from torch for every reference prompt, decode bursts %s',
    async (burst) => {
      vi.stubEnv('FF_DECODE_BURST', burst);
      const entry = runtime.catalogue.entryOf(BUNDLED_MODEL_REF);
      if (entry?.status !== 'ok') throw new Error('the bundled model did not load');
      const { tokenizer } = entry.model.folder;
      for (const { prompt, tokens } of REFERENCE.cases) {
        const text = tokenizer.decode(prompt, false);
        // The engine takes text: only a prompt whose text encodes back to the same ids is comparable.
        expect(tokenizer.encode(text)).toEqual(prompt);
        const result = await generate(runtime, {
          modelId: BUNDLED_MODEL_REF,
          prompt: { kind: 'text', text },
          maxTokens: tokens.length,
          ignoreEos: true,
        });
        expect(result.tokenIds).toEqual(tokens);
      }
    },
  );
});
