import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agreementOf,
  greedyContinuation,
  meanTokensBeforeDivergence,
  scoreText,
} from '../../../bench/quality/measure';
import { referenceOf } from '../../../bench/quality/report';
import { KvBatch } from '../../../src-main/runtime/slot-worker/kv-batch';
import { logitsAt } from '../../../src-main/runtime/slot-worker/model-runner';
import type { ModelRunner } from '../../../src-main/runtime/slot-worker/model-runner';
import { openRunner } from '../../../src-main/runtime/slot-worker/open-runner';
import { ModelCatalogue } from '../../../src-main/runtime/model/catalogue';
import { RevisionCache } from '../../../src-main/runtime/model/revisions';
import type { CatalogueModel } from '../../../src-main/runtime/model/catalogue';
import { writeLayoutModel } from '../../../tools/onnx-llama/layouts';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import { QUANTIZE_DEFAULTS, quantizeModelFolder } from '../../../tools/onnx-llama/quantize/quantize-model';

describe('quality measures', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-quality-'));
  let models: CatalogueModel[];
  let runner: ModelRunner;
  beforeAll(async () => {
    const tokenizerFrom = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
    writeLayoutModel({ layout: 'plain', outDir: path.join(root, 'tiny'), seed: 3, tokenizerFrom });
    quantizeModelFolder({ ...QUANTIZE_DEFAULTS, modelDir: path.join(root, 'tiny'), bits: 4 });
    const catalogue = new ModelCatalogue(root, null, new RevisionCache(null));
    models = (await catalogue.refresh()).flatMap((e) => (e.status === 'ok' ? [e.model] : []));
    runner = await openRunner(
      models.find((m) => m.variant === 'fp32')!,
      { numThreads: 1, canSpinThreads: true },
    );
  });
  afterAll(async () => {
    await runner?.release();
    rmSync(root, { recursive: true, force: true });
  });

  it('scores text as −log2 p of each token given everything before it, across forward chunks', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => 1 + ((i * 37) % 4000));
    const score = await scoreText(runner, [{ prefix: [ids[0]!], scored: ids.slice(1), numBytes: 1000 }]);
    const whole = await runner.forward(
      KvBatch.empty(runner.geometry, ['w']),
      BigInt64Array.from(ids, BigInt),
      300,
      'all',
    );
    let bits = 0;
    for (let i = 0; i < ids.length - 1; i++) {
      const logits = logitsAt(whole, 0, i);
      const max = Math.max(...logits);
      const sum = logits.reduce((s, v) => s + Math.exp(v - max), 0);
      bits -= (logits[ids[i + 1]!]! - max - Math.log(sum)) / Math.LN2;
    }
    expect(score.numScoredTokens).toBe(299);
    expect(score.numBytes).toBe(1000);
    expect(Math.abs(score.numBits - bits) / bits).toBeLessThan(1e-4);
  });

  it('agrees fully with itself and names the highest-precision variant as the reference', async () => {
    const a = await greedyContinuation(runner, [5, 6, 7], 12, 4096);
    const b = await greedyContinuation(runner, [5, 6, 7], 12, 4096);
    expect(agreementOf([a.tokens], [b.tokens])).toBe(1);
    expect(meanTokensBeforeDivergence([a.tokens], [b.tokens])).toBe(12);
    expect(a.stepMs).toHaveLength(11);
    expect(referenceOf(models).variant).toBe('fp32');
    expect(models.map((m) => m.graph.weightDtype).sort()).toEqual(['fp32', 'int4']);
  });

  it('counts agreement position by position, and the run before the first difference', () => {
    expect(agreementOf([[1, 2, 3, 4]], [[1, 2, 9, 4]])).toBe(0.75);
    expect(
      meanTokensBeforeDivergence(
        [
          [1, 2, 3, 4],
          [5, 6],
        ],
        [
          [1, 2, 9, 4],
          [7, 6],
        ],
      ),
    ).toBe(1);
  });
});
