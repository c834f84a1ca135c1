import { describe, expect, it } from 'vitest';
import { failureBlock, heartbeatLine, runQuietStep } from '../../../../tools/setup/quiet-step.mjs';

/** Runs `node -e script` as a quiet step and collects what it printed. */
async function step(
  script: string,
  options: { announceAfterMs?: number; heartbeatMs?: number; timeoutMs?: number } = {},
) {
  const printed: string[] = [];
  const result = await runQuietStep({
    command: process.execPath,
    args: ['-e', script],
    cwd: process.cwd(),
    announce: '[first-frame] compiling SQLite for this machine, about a minute…',
    activity: 'compiling SQLite',
    print: (line) => printed.push(line),
    ...options,
  });
  return { result, printed };
}

describe('a long setup step as a new user sees it', () => {
  it('announces itself and keeps the tool output back when it succeeds', async () => {
    const { result, printed } = await step(
      "console.log('gyp info spawn args'); console.error('warning: unused')",
    );
    expect(result.isOk).toBe(true);
    expect(printed).toEqual(['[first-frame] compiling SQLite for this machine, about a minute…']);
    expect(result.output).toContain('gyp info spawn args');
    expect(result.output).toContain('warning: unused');
  });

  it('gives the whole output back when it fails, framed with the command and the exit code', async () => {
    const { result } = await step("for (let i = 0; i < 40; i++) console.error('line ' + i); process.exit(3)");
    expect(result).toMatchObject({ isOk: false, code: 3, isTimedOut: false });
    const block = failureBlock('node-gyp rebuild', result);
    for (let i = 0; i < 40; i += 1) expect(block).toContain(`line ${i}\n`);
    expect(block.split('\n').at(-1)).toBe('[first-frame] ---- end of output (exit code 3) ----');
  });

  it('prints a heartbeat while it runs', async () => {
    const { printed } = await step('setTimeout(() => {}, 400)', { heartbeatMs: 50 });
    expect(printed.filter((line) => line.includes('… still compiling SQLite')).length).toBeGreaterThan(0);
    expect(heartbeatLine('compiling SQLite', 45_200)).toBe('[first-frame]   … still compiling SQLite (45 s)');
  });

  it('stays silent when a delayed announcement is not reached (a download that fails at once)', async () => {
    const { result, printed } = await step('process.exit(1)', { announceAfterMs: 60_000 });
    expect(result.isOk).toBe(false);
    expect(printed).toEqual([]);
  });

  it('stops a step at its deadline and says so', async () => {
    const { result } = await step('setTimeout(() => {}, 60_000)', { timeoutMs: 100 });
    expect(result).toMatchObject({ isOk: false, isTimedOut: true });
    expect(failureBlock('x', result)).toMatch(/stopped after .* \(time limit\)/);
  });

  it('reports a command that cannot start as a failed step instead of throwing', async () => {
    const result = await runQuietStep({
      command: '/nonexistent/node-gyp',
      args: [],
      cwd: process.cwd(),
      announce: null,
      activity: 'x',
      print: () => undefined,
    });
    expect(result.isOk).toBe(false);
    expect(result.spawnError).toMatch(/ENOENT/);
  });
});
