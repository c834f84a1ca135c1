import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_ID } from '../../support/models';

const CLI = new URL('../../../src-main/cli/generate.ts', import.meta.url).pathname;

function generate(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run generate', () => {
  it('--variant q4 answers on the bundled model’s q4 file and says so', () => {
    const { code, stdout } = generate('Once upon a time', '--variant', 'q4', '--max-tokens', '3', '--json');
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { model: string; finish_reason: string; output_tokens: number };
    expect(out).toMatchObject({ model: `${BUNDLED_MODEL_ID}:q4`, finish_reason: 'length', output_tokens: 3 });
  });

  it('refuses a variant the model does not have, naming the ones it has, with exit 1', () => {
    const { code, stdout, stderr } = generate('Once', '--variant', 'q3', '--max-tokens', '2');
    expect(code).toBe(1);
    expect(`${stdout}${stderr}`).toMatch(
      new RegExp(`${BUNDLED_MODEL_ID} has no variant "q3"; its variants: .*q4`),
    );
  });
});
