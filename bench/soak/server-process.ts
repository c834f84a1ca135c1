import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVE = fileURLToPath(new URL('../../src-main/cli/serve.ts', import.meta.url));

/** The headless host under test, in a process of its own (so its RSS is its own). */
export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  /** Resident set size now (bytes), read from /proc. */
  rssBytes(): number;
  /** True while the process is alive. */
  isAlive(): boolean;
  /** Lines it printed to stderr (crash reasons). */
  readonly stderr: string[];
  /** SIGTERM, then waits for its clean shutdown (it flushes history); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `npm run serve -- --port 0 --data-dir DIR` and resolves once it prints its URL. */
export async function startServer(dataDir: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVE, '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FIRST_FRAME_API_KEY: '' },
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await urlOf(child, exited, stderr);
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    rssBytes: () => rssOf(child.pid!),
    isAlive: () => child.exitCode === null && child.signalCode === null,
    stderr,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function urlOf(child: ChildProcess, exited: Promise<number | null>, stderr: string[]): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const found = new Promise<string>((resolve) =>
    lines.on('line', (line) => {
      const match = /serving at (http:\/\/\S+\/)/.exec(line);
      if (match) resolve(match[1]!);
    }),
  );
  const failed = exited.then((code) => {
    throw new Error(`the host exited (code ${code}) before serving: ${stderr.join('\n')}`);
  });
  return Promise.race([found, failed]);
}

/** VmRSS of a process in bytes (Linux /proc); 0 where /proc is not available. */
function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    // No /proc (not Linux) or the process just exited: the sample is skipped, the report says 0.
    return 0;
  }
}
