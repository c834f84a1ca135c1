import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KvBatch } from '../../../src-main/runtime/slot-worker/kv-batch';
import { lastLogits } from '../../../src-main/runtime/slot-worker/model-runner';
import { openRunner } from '../../../src-main/runtime/slot-worker/open-runner';
import { ModelCatalogue } from '../../../src-main/runtime/model/catalogue';
import { RevisionCache } from '../../../src-main/runtime/model/revisions';
import { argmax } from '../../../src-main/runtime/sampling/sampler';
import { BUNDLED_MODEL_ID, BUNDLED_MODEL_REF, BUNDLED_MODELS_DIR } from '../../support/models';

const FOLDER = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
const REFERENCE = JSON.parse(readFileSync(path.join(FOLDER, 'greedy-reference.json'), 'utf8')) as {
  onnx_sha256: string;
  cases: Array<{ prompt: number[]; tokens: number[] }>;
};

describe('the shipped model', () => {
  it('is the file the training record describes (sha256 of onnx/model.onnx)', () => {
    const digest = createHash('sha256')
      .update(readFileSync(path.join(FOLDER, 'onnx', 'model.onnx')))
      .digest('hex');
    expect(digest).toBe(REFERENCE.onnx_sha256);
  });

  it('gives the greedy tokens recorded from torch at training time', async () => {
    const catalogue = new ModelCatalogue(BUNDLED_MODELS_DIR, null, new RevisionCache(null));
    await catalogue.refresh();
    const model = catalogue.resolve(BUNDLED_MODEL_REF);
    if (model instanceof Error) throw model;
    const runner = await openRunner(model, { numThreads: 1, canSpinThreads: true });
    try {
      for (const { prompt, tokens } of REFERENCE.cases) {
        let batch = KvBatch.empty(runner.geometry, ['ref']);
        let input = prompt;
        const produced: number[] = [];
        while (produced.length < tokens.length) {
          const result = await runner.forward(batch, BigInt64Array.from(input, BigInt), input.length);
          batch = batch.advanced(result.kv, input.length);
          const next = argmax(lastLogits(result, 0));
          produced.push(next);
          input = [next];
        }
        expect(produced).toEqual(tokens);
      }
    } finally {
      await runner.release();
    }
  });
});
