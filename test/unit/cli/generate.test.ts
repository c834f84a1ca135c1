import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GENERATE_USAGE, parseGenerateArgs } from '../../../src-main/cli/generate/args';
import { runGenerate } from '../../../src-main/cli/generate/run-generate';
import { UsageError } from '../../../src-main/cli/usage-error';
import { GGUF_ARCHITECTURES } from '../../../src-main/runtime/model/gguf/gguf-architecture';
import { writeGguf } from '../../../tools/gguf/gguf-file';
import { runCaptured } from '../../support/cli';
import { bundledGguf } from '../../support/gguf-fixtures';
import { BUNDLED_MODEL_ID, BUNDLED_MODEL_OLD_REF, BUNDLED_MODEL_REF } from '../../support/models';

// One data folder for every run: the bundled model's hashes are remembered there after the first.
const dir = mkdtempSync(path.join(tmpdir(), 'ff-generate-'));
const dataDir = path.join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const generate = (...args: string[]) => runCaptured(runGenerate, [...args, '--data-dir', dataDir]);

describe('npm run generate: the command line', () => {
  it('prints its usage for --help (exit 0) and refuses an unknown option or a bad number with it (exit 2)', async () => {
    expect(parseGenerateArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseGenerateArgs(['Hi', '--model', 'x.gguf', '--data-dir', 'd'])).toMatchObject({
      kind: 'generate',
      prompt: 'Hi',
      maxTokens: 64,
      model: 'x.gguf',
      dataDir: 'd',
    });
    expect(() => parseGenerateArgs(['Hi', '--bogus'])).toThrow(UsageError);
    expect(() => parseGenerateArgs(['Hi', '--max-tokens', '0'])).toThrow(
      '--max-tokens 0 is not a valid value',
    );
    expect(() => parseGenerateArgs(['--model', 'm'])).toThrow(/the prompt/);
    const help = await runCaptured(runGenerate, ['--help']);
    expect(help).toMatchObject({ code: 0, out: [GENERATE_USAGE] });
    const bad = await runCaptured(runGenerate, ['Hi', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.err.join('\n')).toMatch(/--bogus[\s\S]*usage: npm run generate/);
  });
});

describe('npm run generate: models', () => {
  it('--variant q4 answers on the bundled model’s q4 file and says so', async () => {
    const { code, out } = await generate(
      'Once upon a time',
      '--variant',
      'q4',
      '--max-tokens',
      '3',
      '--json',
    );
    expect(code).toBe(0);
    const json = JSON.parse(out.join('\n')) as {
      model: string;
      finish_reason: string;
      output_tokens: number;
    };
    expect(json).toMatchObject({
      model: `${BUNDLED_MODEL_ID}:q4`,
      finish_reason: 'length',
      output_tokens: 3,
    });
  });

  it('--model with a variant’s old id answers on that variant, recorded under its id now', async () => {
    const { code, out } = await generate(
      'Once',
      '--model',
      BUNDLED_MODEL_OLD_REF,
      '--max-tokens',
      '2',
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ model: BUNDLED_MODEL_REF, output_tokens: 2 });
  });

  it('refuses a variant the model does not have, or a name nothing has, naming what the catalogue lists', async () => {
    const variant = await generate('Once', '--variant', 'q3', '--max-tokens', '2');
    expect(variant.code).toBe(1);
    expect(variant.err.join('\n')).toMatch(
      new RegExp(`${BUNDLED_MODEL_ID} has no variant "q3"; its variants: .*q4`),
    );
    const unknown = await generate('Once', '--model', 'no-such-model');
    expect(unknown.code).toBe(1);
    // The catalogue's names, not the folders of the directory the command runs in.
    expect(unknown.err).toEqual([`unknown model "no-such-model"; known: ${BUNDLED_MODEL_ID}`]);
  });

  it('runs a GGUF given by path, converted into the data folder’s graph cache, and names one it cannot run', async () => {
    const file = path.join(dir, 'my-model.gguf');
    copyFileSync(bundledGguf('f16'), file);
    const ran = await generate('Once upon a time', '--model', file, '--max-tokens', '2', '--json');
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.out.join('\n'))).toMatchObject({ model: 'my-model:gguf', output_tokens: 2 });
    expect(readdirSync(path.join(dataDir, 'ort-graphs', 'gguf'))).toHaveLength(1);
    const mamba = path.join(dir, 'mamba.gguf');
    writeGguf(mamba, [['general.architecture', { type: 'string', value: 'mamba' }]], []);
    const refused = await generate('Once', '--model', mamba);
    expect(refused.code).toBe(1);
    expect(refused.err).toEqual([
      `mamba: not supported yet: architecture mamba (supported: ${Object.keys(GGUF_ARCHITECTURES).join(', ')})`,
    ]);
  }, 60_000);
});
