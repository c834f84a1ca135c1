import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../../src-main/runtime/model/load-folder';
import { writeFusedDecoder } from '../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import { inspectGguf } from '../../../src-main/runtime/model/gguf/gguf-model';
import { ggufWeightSet } from '../../../src-main/runtime/model/gguf/gguf-weight-set';
import { convertFolderToGguf } from '../../../tools/gguf/convert';
import { AUSTEN_TEXT } from '../../support/austen-text';
import { agreement, fusedGreedy, fusedTeacherForced, openFused } from '../../support/fused-oracle';
import { llamaCppForSuite, peersSkipReason } from '../../support/llama-peers';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

// llama.cpp's `mistral3` architecture (Ministral 3's text model) is llama's graph when the file
// sets neither YaRN nor Llama 4's attention temperature (First Frame refuses both): the bundled
// model written under that name converts and matches llama.cpp running the same file.

describe.skipIf(peersSkipReason !== null)('a mistral3 GGUF converted to the fused graph', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-mistral3-'));
  const modelDir = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const engine = llamaCppForSuite();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('f16: read as llama-shaped (Q/K rows unpermuted), teacher-forced and 16 greedy ids equal llama.cpp’s', async () => {
    const outPath = path.join(dir, 'mistral3-f16.gguf');
    convertFolderToGguf({ modelDir, type: 'f16', outPath, architecture: 'mistral3' });
    const model = inspectGguf(outPath);
    expect(model.architecture).toBe('mistral3');
    expect(model.isRopePermuted).toBe(true);
    const set = ggufWeightSet(model);
    const prompt = loadModelFolder(modelDir).tokenizer.encode(AUSTEN_TEXT).slice(0, 256);
    const ours = await openFused(writeFusedDecoder(set));
    const vocab = { numUsable: set.dims.vocabSize, numLogits: set.dims.vocabSize };
    const theirs = await engine().open(outPath, 1, 2048, vocab);
    try {
      const forced = agreement(
        await fusedTeacherForced(ours, set.dims, prompt),
        await theirs.teacherForced(prompt),
      );
      console.log(`mistral3 f16: teacher-forced agreement ${forced.toFixed(4)}`);
      expect(forced).toBeGreaterThanOrEqual(0.99);
      const start = prompt.slice(0, 32);
      const reference = [(await theirs.prefill(start, false)).nextId];
      while (reference.length < 16) reference.push((await theirs.step(reference.at(-1)!, false)).nextId);
      expect(await fusedGreedy(ours, set.dims, start, 16)).toEqual(reference);
    } finally {
      await ours.release();
      await theirs.close();
    }
  }, 120_000);
});
