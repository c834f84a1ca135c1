import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGeneration } from '../../../src-main/runtime/collect';
import { Runtime } from '../../../src-main/runtime/runtime';
import { writeLayoutModel } from '../../../tools/onnx-llama/layouts';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import { expectNothingHeld } from '../../support/runtime';

const { onnx } = onnxProto;
const SECRET = 'SECRET-CONTENT-never-shown';

/** Rewrites a folder's onnx/model.onnx through `change` (decoded ModelProto, edited in place). */
function editGraph(dir: string, change: (model: ReturnType<typeof onnx.ModelProto.decode>) => void): void {
  const file = path.join(dir, 'onnx', 'model.onnx');
  const model = onnx.ModelProto.decode(readFileSync(file));
  change(model);
  writeFileSync(file, onnx.ModelProto.encode(model).finish());
}

function editJson(file: string, change: (json: Record<string, unknown>) => void): void {
  const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(json);
  writeFileSync(file, JSON.stringify(json));
}

/** Each bad folder: how to break a good copy, and the per-file error listing must give. */
const CASES: Array<{ name: string; breakIt: (dir: string) => void; error: RegExp; modelId?: string }> = [
  {
    name: 'wrong-dtype',
    breakIt: (dir) =>
      editGraph(dir, (m) => {
        m.graph!.input!.find((i) => i.name === 'past_key_values.0.key')!.type!.tensorType!.elemType = 3;
      }),
    error:
      /^onnx\/model\.onnx: graph input "past_key_values\.0\.key" is int8; First Frame handles float32 or float16/,
  },
  {
    name: 'unknown-op',
    breakIt: (dir) =>
      editGraph(dir, (m) => {
        m.graph!.node!.find((n) => n.opType === 'Softmax')!.opType = 'FrobnicateSoftly';
      }),
    error: /^onnx\/model\.onnx: uses unknown operator FrobnicateSoftly/,
  },
  {
    name: 'missing-external-data',
    breakIt: (dir) => rmSync(path.join(dir, 'onnx', 'model.onnx_data_1')),
    error: /^onnx\/model\.onnx: external data onnx\/model\.onnx_data_1: missing/,
  },
  {
    name: 'external-data-outside',
    breakIt: (dir) => {
      writeFileSync(path.join(dir, '..', 'outside.bin'), Buffer.alloc(1 << 20));
      const file = path.join(dir, 'onnx', 'model.onnx');
      const model = onnx.ModelProto.decode(readFileSync(file));
      for (const tensor of model.graph!.initializer!)
        for (const entry of tensor.externalData ?? [])
          if (entry.key === 'location') entry.value = '../../outside.bin';
      writeFileSync(file, onnx.ModelProto.encode(model).finish());
    },
    error:
      /^onnx\/model\.onnx: external data "\.\.\/\.\.\/outside\.bin" is outside the model folder; refused/,
  },
  {
    name: 'external-data-symlink-outside',
    breakIt: (dir) => {
      const outside = path.join(dir, '..', 'outside-data.bin');
      cpSync(path.join(dir, 'onnx', 'model.onnx_data'), outside);
      rmSync(path.join(dir, 'onnx', 'model.onnx_data'));
      symlinkSync(outside, path.join(dir, 'onnx', 'model.onnx_data'));
    },
    error:
      /external data onnx\/model\.onnx_data: is a link that leads outside the model folder; refused, not read/,
  },
  {
    name: 'truncated-external-data',
    breakIt: (dir) => truncateSync(path.join(dir, 'onnx', 'model.onnx_data'), 1000),
    error: /external data onnx\/model\.onnx_data is 1000 bytes but the graph reads up to byte \d+: truncated/,
  },
  {
    name: 'vocab-mismatch',
    breakIt: (dir) => editJson(path.join(dir, 'config.json'), (c) => (c['vocab_size'] = 5000)),
    error: /^onnx\/model\.onnx: config\.json vocab_size is 5000 but the graph's logits have 4096 ids/,
  },
  {
    name: 'kv-heads-mismatch',
    breakIt: (dir) => editJson(path.join(dir, 'config.json'), (c) => (c['num_key_value_heads'] = 1)),
    error: /has 2 K\/V heads but config\.json says 1 \(num_key_value_heads\)/,
  },
  {
    name: 'config-symlink-outside',
    breakIt: (dir) => {
      const outside = path.join(dir, '..', 'not-a-config.txt');
      writeFileSync(outside, `${SECRET}\n{ not json`);
      rmSync(path.join(dir, 'config.json'));
      symlinkSync(outside, path.join(dir, 'config.json'));
    },
    error: /^config\.json: is a link that leads outside the model folder; refused, not read/,
  },
  {
    name: 'config-not-json',
    breakIt: (dir) => writeFileSync(path.join(dir, 'config.json'), `{"model_type": "llama", ${SECRET}`),
    error: /^config\.json: malformed JSON/,
  },
  {
    name: 'missing-layers-field',
    breakIt: (dir) => editJson(path.join(dir, 'config.json'), (c) => delete c['num_hidden_layers']),
    error: /^config\.json: num_hidden_layers is missing \(the number of K\/V layers\)/,
  },
  {
    name: 'unreadable-tokenizer-config',
    breakIt: (dir) => {
      rmSync(path.join(dir, 'tokenizer_config.json'));
      mkdirSync(path.join(dir, 'tokenizer_config.json'));
    },
    error: /^tokenizer_config\.json: is a folder, not a file/,
  },
  {
    name: 'bad-template-filter',
    breakIt: (dir) =>
      editJson(path.join(dir, 'tokenizer_config.json'), (c) => {
        c['chat_template'] = '{% for m in messages %}{{ m.content | frobnicate }}{% endfor %}';
      }),
    error: /^tokenizer_config\.json: chat template failed to render \(.*frobnicate/,
  },
  {
    name: 'runaway-template',
    breakIt: (dir) =>
      editJson(path.join(dir, 'tokenizer_config.json'), (c) => {
        c['chat_template'] = '{% for i in range(100000000) %}x{% endfor %}';
      }),
    error: /^tokenizer_config\.json: chat template computed the integer 100000000, over the limit of 1000000/,
  },
  {
    name: 'deep-tokenizer',
    // Valid JSON, 4M levels deep: parsing it alone took seconds and kept hundreds of MB.
    breakIt: (dir) =>
      writeFileSync(
        path.join(dir, 'tokenizer.json'),
        `{"model": ${'['.repeat(4_000_000)}${']'.repeat(4_000_000)}}`,
      ),
    error: /^tokenizer\.json: is nested deeper than 64 levels; refused before parsing /,
  },
  {
    name: 'tokenizer-of-too-many-items',
    breakIt: (dir) =>
      writeFileSync(path.join(dir, 'tokenizer.json'), `{"model": [${'0,'.repeat(8_000_001)}0]}`),
    error:
      /^tokenizer\.json: holds more than 8,000,000 items \(array elements and object members\); refused before parsing /,
  },
  {
    name: 'no-model-file',
    breakIt: (dir) => {
      rmSync(path.join(dir, 'onnx'), { recursive: true });
      mkdirSync(path.join(dir, 'onnx'));
      writeFileSync(path.join(dir, 'onnx', 'decoder_model.onnx'), '');
    },
    error: /^onnx\/: no ONNX model file .*found only onnx\/decoder_model\.onnx \(a decoder without past K\/V/,
  },
];

describe('bad model folders are a clear per-file error at listing, never a crash or a half-loaded slot', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-bad-folders-'));
  const models = path.join(root, 'models');
  let runtime: Runtime;
  beforeAll(async () => {
    const tokenizerFrom = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
    const plain = path.join(root, 'plain');
    const external = path.join(root, 'external');
    writeLayoutModel({ layout: 'plain', outDir: plain, seed: 7, tokenizerFrom });
    writeLayoutModel({ layout: 'external-data', outDir: external, seed: 7, tokenizerFrom });
    mkdirSync(models);
    cpSync(plain, path.join(models, 'healthy'), { recursive: true });
    for (const { name, breakIt } of CASES) {
      const dir = path.join(models, name);
      cpSync(name.includes('external-data') ? external : plain, dir, { recursive: true });
      breakIt(dir);
    }
    // Renders the listing's test conversations (short messages) fine; a long message makes it
    // loop past the range bound.
    const perChar = path.join(models, 'template-per-char');
    cpSync(plain, perChar, { recursive: true });
    editJson(path.join(perChar, 'tokenizer_config.json'), (c) => {
      c['chat_template'] =
        '{% for m in messages %}{% if (m.content | length) > 1000 %}' +
        '{% for i in range(m.content | length * 100) %}.{% endfor %}{% endif %}{% endfor %}';
    });
    // One folder, two files: a good model.onnx and a truncated model_q4.onnx beside it.
    const mixed = path.join(models, 'mixed');
    cpSync(plain, mixed, { recursive: true });
    const q4 = path.join(mixed, 'onnx', 'model_q4.onnx');
    cpSync(path.join(mixed, 'onnx', 'model.onnx'), q4);
    truncateSync(q4, 5000);
    runtime = await Runtime.create({ bundledModelsDir: models, numThreads: 1 });
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const { name, error } of CASES) {
    it(`${name}: listed as broken with the file and problem named; a request for it is refused`, async () => {
      const entry = runtime.catalogue.entryOf(name);
      expect(entry?.status).toBe('broken');
      const message = entry?.status === 'broken' ? entry.error : '';
      expect(message).toMatch(error);
      expect(message).not.toContain(SECRET);
      const result = await collectGeneration(runtime, {
        requestId: `bad-${name}`,
        modelId: name,
        prompt: { kind: 'text', text: 'Hello' },
        maxTokens: 2,
      });
      expect(result.timeline.finishReason).toBe('rejected');
      expect(result.errorMessage).toBe(message);
      expect(runtime.slots().some((slot) => slot.model.name === name)).toBe(false);
    });
  }

  it('marks only the bad file of a folder broken: its other variants list and answer', async () => {
    expect(runtime.catalogue.entryOf('mixed:q4')).toMatchObject({
      status: 'broken',
      error: expect.stringMatching(/^onnx\/model_q4\.onnx: ends early: .* truncated$/),
    });
    const result = await collectGeneration(runtime, {
      requestId: 'mixed-fp32',
      modelId: 'mixed',
      prompt: { kind: 'text', text: 'Hello' },
      maxTokens: 3,
      temperature: 0,
    });
    expect(result.errorMessage).toBeNull();
    expect(result.timeline.modelId).toBe('mixed:fp32');
  });

  it('refuses a request whose messages make a listed template run away, quickly and with the reason', async () => {
    const startMs = performance.now();
    const result = await collectGeneration(runtime, {
      requestId: 'runaway-at-request',
      modelId: 'template-per-char',
      prompt: { kind: 'chat', messages: [{ role: 'user', content: 'x'.repeat(5000) }] },
      maxTokens: 2,
    });
    const elapsedMs = performance.now() - startMs;
    console.log(`runaway template refused in ${elapsedMs.toFixed(0)} ms`);
    expect(result.timeline.finishReason).toBe('rejected');
    expect(result.errorCode).toBe('invalid_input');
    expect(result.errorMessage).toMatch(/^chat template range\(\) of \d+ items is over the limit of \d+$/);
    expect(elapsedMs).toBeLessThan(5_000); // generous on a shared machine; unbounded it would not return
  });

  it('keeps serving healthy models after listing every bad folder, holding nothing', async () => {
    const result = await collectGeneration(runtime, {
      requestId: 'healthy-1',
      modelId: 'healthy',
      prompt: { kind: 'text', text: 'Hello' },
      maxTokens: 3,
      temperature: 0,
    });
    expect(result.errorMessage).toBeNull();
    expectNothingHeld(runtime);
  });
});
