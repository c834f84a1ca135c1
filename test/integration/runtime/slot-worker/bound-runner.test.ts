import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KvBatch } from '../../../../src-main/runtime/slot-worker/kv-batch';
import { lastLogits } from '../../../../src-main/runtime/slot-worker/model-runner';
import type { ModelRunner } from '../../../../src-main/runtime/slot-worker/model-runner';
import { openRunner, runnerSpecOf } from '../../../../src-main/runtime/slot-worker/open-runner';
import { loadBoundOrt } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-library';
import { BoundRunner } from '../../../../src-main/runtime/slot-worker/ort-binding/bound-runner';
import { ModelCatalogue } from '../../../../src-main/runtime/model/catalogue';
import { RevisionCache } from '../../../../src-main/runtime/model/revisions';
import type { CatalogueModel } from '../../../../src-main/runtime/model/catalogue';
import { argmax } from '../../../../src-main/runtime/sampling/sampler';
import { maxAbs, maxAbsDifference } from '../../../support/float-arrays';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../support/models';

const REFERENCE = JSON.parse(
  readFileSync(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID, 'greedy-reference.json'), 'utf8'),
) as { cases: Array<{ prompt: number[]; tokens: number[] }> };
const OPTIONS = { numThreads: 1, canSpinThreads: true };
const bound = loadBoundOrt();
const isRequired = process.env['FF_REQUIRE_NATIVE'] === '1';

/** Greedy decoding's ids and every step's last-position logits. */
interface Trace {
  ids: number[];
  logits: Float32Array[];
}

async function traceOfOrtNode(runner: ModelRunner, prompt: number[], numTokens: number): Promise<Trace> {
  let batch = KvBatch.empty(runner.geometry, ['seq']);
  let input = prompt;
  const trace: Trace = { ids: [], logits: [] };
  while (trace.ids.length < numTokens) {
    const result = await runner.forward(batch, BigInt64Array.from(input, BigInt), input.length);
    batch = batch.advanced(result.kv, input.length);
    const logits = lastLogits(result, 0).slice();
    trace.logits.push(logits);
    trace.ids.push(argmax(logits));
    input = [trace.ids.at(-1)!];
  }
  return trace;
}

async function traceOfBound(
  runner: BoundRunner,
  row: number,
  prompt: number[],
  numTokens: number,
): Promise<Trace> {
  let input = prompt;
  const trace: Trace = { ids: [], logits: [] };
  while (trace.ids.length < numTokens) {
    const result = await runner.forward(
      { first: row, count: 1 },
      BigInt64Array.from(input, BigInt),
      input.length,
    );
    const logits = result.logits.subarray(0, result.vocabSize).slice();
    trace.logits.push(logits);
    trace.ids.push(argmax(logits));
    input = [trace.ids.at(-1)!];
  }
  return trace;
}

describe.skipIf(!bound.isAvailable && !isRequired)(
  'the bound run path (ONNX Runtime C API, K/V in place)',
  () => {
    let catalogue: ModelCatalogue;
    beforeAll(async () => {
      catalogue = new ModelCatalogue(BUNDLED_MODELS_DIR, null, new RevisionCache(null));
      await catalogue.refresh();
    });
    afterAll(() => {
      if (!bound.isAvailable) console.warn(`bound path skipped: ${bound.reason}`);
    });

    function modelOf(variant: string): CatalogueModel {
      const model = catalogue.resolve(`${BUNDLED_MODEL_ID}:${variant}`);
      if (model instanceof Error) throw model;
      return model;
    }

    // The addon's grouped attention sums in another order than ONNX Runtime's kernel: the same
    // ids, logits equal to float rounding (q4's MatMulNBits quantizes its activations to int8, so
    // a last-bit difference can move one step: 1% of the logits' scale). With it off, the same
    // kernels give the same bits.
    const RELATIVE_TOLERANCE = 0.01;
    it.each([
      ['fp32', 'grouped'],
      ['q4', 'grouped'],
      ['q4', 'off'],
    ])(
      'gives the %s model (attention: %s) the same greedy ids and logits as onnxruntime-node',
      async (variant, attention) => {
        vi.stubEnv('FF_GROUPED_ATTENTION', attention === 'off' ? 'off' : 'on');
        const model = modelOf(variant);
        const { prompt, tokens } = REFERENCE.cases[0]!;
        const ortNode = await openRunner(model, OPTIONS);
        const expected = await traceOfOrtNode(ortNode, prompt, tokens.length).finally(() =>
          ortNode.release(),
        );
        const size = {
          maxRows: 1,
          capacity: prompt.length + tokens.length + 1,
          vocabSize: model.folder.shape.vocabSize,
        };
        const runner = await BoundRunner.open(
          model.graph.onnxPath,
          runnerSpecOf(model),
          OPTIONS,
          size,
        ).finally(() => vi.unstubAllEnvs());
        try {
          expect(runner.attention).toBe(attention === 'off' ? 'onnxruntime' : 'grouped');
          const actual = await traceOfBound(runner, 0, prompt, tokens.length);
          expect(actual.ids).toEqual(expected.ids);
          if (variant === 'fp32') expect(actual.ids).toEqual(tokens);
          actual.logits.forEach((logits, step) => {
            if (attention === 'off') expect(logits).toEqual(expected.logits[step]);
            else
              expect(maxAbsDifference(logits, expected.logits[step]!)).toBeLessThan(
                RELATIVE_TOLERANCE * maxAbs(expected.logits[step]!),
              );
          });
          // ONNX Runtime wrote the K/V into the slot's own buffer: the last token's column is
          // filled, the column after it still zero.
          const numTokens = runner.kv.numTokensOf(0);
          expect(numTokens).toBe(prompt.length + tokens.length - 1);
          const { headDim } = model.folder.shape;
          const key = runner.kv.tensors[0]!;
          expect(key.subarray((numTokens - 1) * headDim, numTokens * headDim).some((x) => x !== 0)).toBe(
            true,
          );
          expect(key.subarray(numTokens * headDim, (numTokens + 1) * headDim).every((x) => x === 0)).toBe(
            true,
          );
        } finally {
          runner.release();
        }
      },
    );

    it('runs forwards on the calling thread when asked, to the same bits as on the libuv pool', async () => {
      const model = modelOf('q4');
      const { prompt, tokens } = REFERENCE.cases[0]!;
      const size = {
        maxRows: 1,
        capacity: prompt.length + tokens.length + 1,
        vocabSize: model.folder.shape.vocabSize,
      };
      const traces: Trace[] = [];
      for (const thread of ['pool', 'caller'] as const) {
        const runner = await BoundRunner.open(
          model.graph.onnxPath,
          runnerSpecOf(model),
          OPTIONS,
          size,
          thread,
        );
        try {
          expect(runner.runThread).toBe(thread);
          traces.push(await traceOfBound(runner, 0, prompt, tokens.length));
        } finally {
          runner.release();
        }
      }
      expect(traces[1]!.ids).toEqual(traces[0]!.ids);
      traces[1]!.logits.forEach((logits, step) => expect(logits).toEqual(traces[0]!.logits[step]));
    });

    it('decodes two rows of different lengths in one batch to the ids each gets alone', async () => {
      const model = modelOf('q4');
      const [first, second] = REFERENCE.cases;
      const numTokens = 6;
      const size = { maxRows: 2, capacity: 64, vocabSize: model.folder.shape.vocabSize };
      const runner = await BoundRunner.open(model.graph.onnxPath, runnerSpecOf(model), OPTIONS, size);
      try {
        const expectedFirst = await traceOfBound(runner, 0, first!.prompt, numTokens);
        const expectedSecond = await traceOfBound(runner, 1, second!.prompt, numTokens);
        runner.kv.clear(0);
        runner.kv.clear(1);
        // Each row's prompt alone (its own row), then both rows' decode steps as one batch.
        const ids: number[][] = [];
        for (const [row, { prompt }] of [first!, second!].entries()) {
          const prefill = await runner.forward(
            { first: row, count: 1 },
            BigInt64Array.from(prompt, BigInt),
            prompt.length,
          );
          ids.push([argmax(prefill.logits.subarray(0, size.vocabSize))]);
        }
        while (ids[0]!.length < numTokens) {
          const step = await runner.forward(
            { first: 0, count: 2 },
            BigInt64Array.of(BigInt(ids[0]!.at(-1)!), BigInt(ids[1]!.at(-1)!)),
            1,
          );
          for (const row of [0, 1])
            ids[row]!.push(argmax(step.logits.subarray(row * size.vocabSize, (row + 1) * size.vocabSize)));
        }
        expect(ids).toEqual([expectedFirst.ids, expectedSecond.ids]);
      } finally {
        runner.release();
      }
    });
  },
);
