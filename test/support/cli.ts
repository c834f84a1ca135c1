import { vi } from 'vitest';

/** What a CLI command printed in-process: its exit code, stdout lines and stderr (console.error) lines. */
export interface CapturedRun {
  code: number;
  out: string[];
  err: string[];
}

/**
 * Runs a CLI command's `run(argv)` in this process with console.log and console.error captured
 * and its progress on process.stderr silenced; everything is restored even when it throws.
 */
export async function runCaptured(
  run: (argv: string[]) => Promise<number>,
  argv: string[],
): Promise<CapturedRun> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((text: string) => void out.push(text));
  const error = vi.spyOn(console, 'error').mockImplementation((text: string) => void err.push(text));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return { code: await run(argv), out, err };
  } finally {
    log.mockRestore();
    error.mockRestore();
    stderr.mockRestore();
  }
}
