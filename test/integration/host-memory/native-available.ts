/**
 * Whether the native addon is built here. Integration tests skip with this reason when it is
 * not (the app then runs on the fallback); FF_REQUIRE_NATIVE=1 turns the skip into a failure.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNativeAddon } from '../../../src-main/runtime/host-memory/native-addon';

const loaded = loadNativeAddon();

/** null when the addon loaded; else why the native tests are skipped. */
export const nativeSkipReason: string | null = loaded.addon
  ? null
  : `${loaded.reason} (run: node native/build.mjs)`;

if (nativeSkipReason && process.env.FF_REQUIRE_NATIVE === '1') {
  throw new Error(`FF_REQUIRE_NATIVE=1 but ${nativeSkipReason}`);
}
if (nativeSkipReason) console.warn(`[host-memory] skipping native tests: ${nativeSkipReason}`);

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

/**
 * Runs fixtures/<name>.ts in a fresh Node (tsx loader), optionally behind a shell prefix such as
 * `ulimit -S -l 1024`, and returns the JSON object its last stdout line prints.
 */
export function runFixture(
  name: string,
  options: { nodeArgs?: string[]; shellPrefix?: string; args?: string[] } = {},
): Record<string, unknown> {
  const nodeArgv = [
    process.execPath,
    ...(options.nodeArgs ?? []),
    '--import',
    'tsx',
    join(FIXTURES, `${name}.ts`),
    ...(options.args ?? []),
  ];
  const quoted = nodeArgv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const script = options.shellPrefix ? `${options.shellPrefix} && exec ${quoted}` : `exec ${quoted}`;
  const result = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`fixture ${name} failed (${result.status}): ${result.stderr}`);
  const lastLine = result.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(lastLine) as Record<string, unknown>;
}
