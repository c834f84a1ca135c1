import { z } from 'zod';
import type { Log } from '../../telemetry/log/log';
import type { ChildStarter, QuietChild } from '../../threads/fork-child';
import { EXECUTION_PROVIDERS, ProviderAvailabilitySchema } from './providers';
import type { ProviderAvailability } from './providers';

/** How long the probe may take before it is stopped and the GPU providers count as unchecked (ms). */
export const PROBE_TIMEOUT_MS = 60_000;
/** The probe's own output kept for the log: the last this many characters. */
const MAX_OUTPUT_CHARS = 4_096;

/** What the probe's process sends back: each provider's availability, or why it could not try. */
const ProbeMessageSchema = z.union([
  z.object({ providers: z.array(ProviderAvailabilitySchema) }),
  z.object({ error: z.string() }),
]);

/**
 * Which execution providers can run here, found in a child process (probe-entry.ts) that
 * `startChild` starts: building a GPU session loads drivers that print native errors (Vulkan,
 * missing CUDA libraries) straight to the process's stderr, and may block. The child's output is
 * read, never printed: it goes to the log at debug with one line of what was found. Never throws:
 * a probe that fails, dies or runs past `timeoutMs` leaves cpu available and every other provider
 * "could not be checked".
 */
export async function probeProvidersQuietly(
  startChild: ChildStarter,
  log: Log,
  { timeoutMs = PROBE_TIMEOUT_MS, signal }: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ProviderAvailability[]> {
  let child: QuietChild;
  try {
    child = startChild('provider-probe', new URL('./probe-entry.ts', import.meta.url));
  } catch (error) {
    return unchecked(log, `the check could not start (${(error as Error).message})`, '');
  }
  let output = '';
  child.onOutput((text) => void (output = (output + text).slice(-MAX_OUTPUT_CHARS)));
  const found = await answerOf(child, timeoutMs, signal);
  child.kill(); // done, or past its time: nothing more is read from it
  if (typeof found === 'string') return unchecked(log, found, oneLine(output));
  log.debug?.('providers', `${found.map(describe).join('; ')}${outputNote(oneLine(output))}`);
  return found;
}

/** The child's answer, or why there is none (past `timeoutMs`, or `signal` aborted: the caller stops it). */
function answerOf(
  child: QuietChild,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<ProviderAvailability[] | string> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve('First Frame was closing');
    signal?.addEventListener('abort', () => settle('First Frame was closing'), { once: true });
    const timer = setTimeout(
      () => resolve(`the check took over ${Math.round(timeoutMs / 1000)} s`),
      timeoutMs,
    );
    timer.unref();
    const settle = (answer: ProviderAvailability[] | string) => {
      clearTimeout(timer);
      resolve(answer);
    };
    child.onMessage((message) => {
      const parsed = ProbeMessageSchema.safeParse(message);
      if (!parsed.success) return settle('the check answered something unreadable');
      settle('providers' in parsed.data ? parsed.data.providers : `the check failed (${parsed.data.error})`);
    });
    child.onEnd((how) => settle(`the check stopped (${how}) before answering`));
  });
}

// Matching the escape character is this pattern's whole point.
// eslint-disable-next-line no-control-regex
const ANSI_COLOUR = /\x1b\[[0-9;]*m/g;

/** The child's output as one log line: ANSI colours dropped, line breaks as " | " (printable() escapes the rest). */
function oneLine(output: string): string {
  return output
    .replace(ANSI_COLOUR, '')
    .trim()
    .replace(/\s*\n\s*/g, ' | ');
}

/** cpu (bundled, so it starts) and every other provider said to be unchecked, with why. */
function unchecked(log: Log, why: string, output: string): ProviderAvailability[] {
  log.debug?.('providers', `${why}${outputNote(output)}`);
  return EXECUTION_PROVIDERS.map((provider) =>
    provider === 'cpu'
      ? { provider, isAvailable: true, reason: null }
      : { provider, isAvailable: false, reason: `${provider}: could not be checked (${why})` },
  );
}

function describe(p: ProviderAvailability): string {
  return p.isAvailable ? `${p.provider} available` : (p.reason ?? `${p.provider} unavailable`);
}

function outputNote(output: string): string {
  return output === '' ? '' : `; the check printed: ${output}`;
}
