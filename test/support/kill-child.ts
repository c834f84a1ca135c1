import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';

/**
 * Runs a TypeScript `script` with `args` in a child Node and hands each line it prints to
 * `onLine`; the child is killed with SIGKILL as soon as `onLine` returns true (integration tests
 * of what survives a crash). Resolves once the child is gone, asserting it died by that signal
 * (its stderr is the failure message otherwise).
 */
export async function runUntilKilled(
  script: string,
  args: readonly string[],
  onLine: (line: string) => boolean,
): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  for await (const line of createInterface({ input: child.stdout })) if (onLine(line)) child.kill('SIGKILL');
  expect(await exited, stderr).toBe('SIGKILL');
}
