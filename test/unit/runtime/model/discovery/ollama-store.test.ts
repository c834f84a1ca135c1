import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ollamaModels, ollamaName } from '../../../../../src-main/runtime/model/discovery/ollama-store';
import { writeManifest, writeOllamaModel, writeTinyGguf } from '../../../../support/model-stores';

const root = mkdtempSync(path.join(os.tmpdir(), 'ff-ollama-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const gguf = path.join(root, 'src', 'tiny.gguf');
writeTinyGguf(gguf);

describe('the Ollama store', () => {
  it('names models as Ollama shows them', () => {
    expect(ollamaName('registry.ollama.ai', 'library', 'llama3.2', '3b')).toBe('llama3.2:3b');
    expect(ollamaName('registry.ollama.ai', 'jane', 'tiny', 'latest')).toBe('jane/tiny:latest');
    expect(ollamaName('hf.co', 'bartowski', 'Llama-3.2-1B-Instruct-GGUF', 'Q4_K_M')).toBe(
      'hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M',
    );
  });

  it('lists each manifest’s model blob with its parameters, template and system prompt', async () => {
    const store = path.join(root, 'one');
    const blobs = writeOllamaModel(
      store,
      ['registry.ollama.ai', 'library', 'llama3.2', '3b'],
      [
        { type: 'model', file: gguf },
        { type: 'template', text: '{{ .System }}{{ .Prompt }}' },
        { type: 'params', text: JSON.stringify({ temperature: 0.6, top_p: 0.9, stop: ['<|eot_id|>'] }) },
        { type: 'system', text: 'You are terse.' },
        { type: 'license', text: 'LICENSE' },
      ],
    );
    const [found, ...rest] = await ollamaModels(store);
    expect(rest).toEqual([]);
    expect(found).toEqual({
      source: 'ollama',
      name: 'llama3.2:3b',
      path: blobs['model'],
      kind: 'gguf',
      label: `model blob ${path.basename(blobs['model']!)}`,
      problem: null,
      facts: {
        defaultSampling: {
          source: 'Ollama parameters',
          doSample: null,
          temperature: 0.6,
          topK: null,
          topP: 0.9,
          repetitionPenalty: null,
        },
        template: '{{ .System }}{{ .Prompt }}',
        systemPrompt: 'You are terse.',
      },
    });
  });

  it('says why a manifest cannot be used, without reading outside the store', async () => {
    const store = path.join(root, 'broken');
    const lib = (model: string): [string, string, string, string] => [
      'registry.ollama.ai',
      'library',
      model,
      'latest',
    ];
    writeManifest(store, lib('not-json'), '{ nope');
    writeManifest(store, lib('no-layers'), { schemaVersion: 2 });
    writeManifest(store, lib('escape'), {
      layers: [{ mediaType: 'application/vnd.ollama.image.model', digest: '../../../etc/passwd' }],
    });
    writeManifest(store, lib('unpulled'), {
      layers: [{ mediaType: 'application/vnd.ollama.image.model', digest: `sha256:${'a'.repeat(64)}` }],
    });
    writeOllamaModel(store, lib('with-adapter'), [
      { type: 'model', file: gguf },
      { type: 'adapter', text: 'lora' },
    ]);
    writeOllamaModel(store, lib('safetensors'), [{ type: 'tensor; name=w; dtype=F16; shape=1', text: 'x' }]);
    writeOllamaModel(store, lib('license-only'), [{ type: 'license', text: 'MIT' }]);
    const problems = Object.fromEntries((await ollamaModels(store)).map((m) => [m.name, m.problem]));
    expect(problems).toEqual({
      'escape:latest': 'names its model layer by "../../../etc/passwd", not a sha256 digest',
      'license-only:latest': 'has no model layer',
      'no-layers:latest': 'is not an Ollama manifest (no list of layers)',
      'not-json:latest': 'is not JSON',
      'safetensors:latest': expect.stringMatching(/separate tensor layers/),
      'unpulled:latest': 'is missing from the store (an unfinished pull?)',
      'with-adapter:latest': expect.stringMatching(/LoRA adapter/),
    });
  });

  it('takes only sampling numbers from parameters, and ignores a parameters layer that is not JSON', async () => {
    const store = path.join(root, 'params');
    const lib = (model: string): [string, string, string, string] => [
      'registry.ollama.ai',
      'library',
      model,
      'x',
    ];
    writeOllamaModel(store, lib('garbled'), [
      { type: 'model', file: gguf },
      { type: 'params', text: 'temperature 0.2' },
    ]);
    writeOllamaModel(store, lib('stops-only'), [
      { type: 'model', file: gguf },
      { type: 'params', text: JSON.stringify({ stop: ['</s>'], num_ctx: 4096 }) },
    ]);
    writeOllamaModel(store, lib('typed-wrong'), [
      { type: 'model', file: gguf },
      { type: 'params', text: JSON.stringify({ temperature: 'hot' }) },
    ]);
    const models = await ollamaModels(store);
    expect(models.map((m) => [m.name, m.problem, m.facts?.defaultSampling])).toEqual([
      ['garbled:x', null, null],
      ['stops-only:x', null, null],
      ['typed-wrong:x', null, null],
    ]);
  });

  it('finds nothing in a store without manifests, and skips stray files', async () => {
    const store = path.join(root, 'empty');
    expect(await ollamaModels(store)).toEqual([]);
    writeManifest(store, ['registry.ollama.ai', 'library', 'm', 't'], '{}');
    writeFileSync(path.join(store, 'manifests', 'registry.ollama.ai', 'stray'), 'x');
    expect((await ollamaModels(store)).map((m) => m.name)).toEqual(['m:t']);
  });
});
