import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// ONNX Runtime runs only in slot workers: loading onnxruntime-node's binding on the main thread
// would cost the serving thread its start-up and memory for nothing. Checked in a fresh process
// (a test runner's module graph is not the app's): what the core's rooms load on import.
const PROBE = `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
await import('./src-main/runtime/runtime.ts');
await import('./src-main/service/create-core.ts');
console.log(JSON.stringify(Object.keys(require.cache).filter((k) => k.includes('onnxruntime'))));
`;

describe('the main thread', () => {
  it('never loads onnxruntime-node: importing the runtime and the service leaves it unloaded', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual([]);
  });
});
