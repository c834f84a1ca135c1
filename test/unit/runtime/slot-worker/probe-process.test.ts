import { describe, expect, it } from 'vitest';
import { probeProvidersQuietly } from '../../../../src-main/runtime/slot-worker/probe-process';
import type { ChildStarter } from '../../../../src-main/threads/fork-child';

/**
 * A child that prints `output` then answers `message`, ends without answering when it is null,
 * or hangs (neither answers nor ends) when it is undefined.
 */
function childThat(output: string, message: unknown): ChildStarter & { numKilled: number } {
  const starter = Object.assign(
    (() => ({
      onMessage: (listener: (m: unknown) => void) => {
        if (message !== null && message !== undefined) queueMicrotask(() => listener(message));
      },
      onOutput: (listener: (text: string) => void) => listener(output),
      onEnd: (listener: (how: string) => void) => {
        if (message === null) queueMicrotask(() => listener('exit 134'));
      },
      kill: () => void starter.numKilled++,
    })) as ChildStarter,
    { numKilled: 0 },
  );
  return starter;
}

function debugLog() {
  const lines: string[] = [];
  return { lines, warn: () => undefined, debug: (_t: string, m: string) => void lines.push(m) };
}

describe('the quiet provider probe', () => {
  it("keeps the child's native output in one debug line and stops the child", async () => {
    const log = debugLog();
    const providers = [
      { provider: 'cpu', isAvailable: true, reason: null },
      { provider: 'webgpu', isAvailable: false, reason: 'webgpu: no adapter' },
      {
        provider: 'cuda',
        isAvailable: false,
        reason: 'cuda: provider files not installed (see README, GPU)',
      },
    ];
    const start = childThat("\x1b[31mWarning: Couldn't load Vulkan\x1b[0m\nat BackendVk.cpp:368\n", {
      providers,
    });
    expect(await probeProvidersQuietly(start, log)).toEqual(providers);
    expect(log.lines).toEqual([
      "cpu available; webgpu: no adapter; cuda: provider files not installed (see README, GPU); the check printed: Warning: Couldn't load Vulkan | at BackendVk.cpp:368",
    ]);
    expect(start.numKilled).toBe(1);
  });

  it('offers cpu and says the others could not be checked when the child dies or answers nonsense', async () => {
    const died = await probeProvidersQuietly(childThat('Segmentation fault', null), debugLog());
    expect(died.map((p) => [p.provider, p.isAvailable, p.reason])).toEqual([
      ['cpu', true, null],
      ['webgpu', false, 'webgpu: could not be checked (the check stopped (exit 134) before answering)'],
      ['cuda', false, 'cuda: could not be checked (the check stopped (exit 134) before answering)'],
    ]);
    const odd = await probeProvidersQuietly(childThat('', { providers: [{ provider: 'tpu' }] }), debugLog());
    expect(odd[1]?.reason).toBe('webgpu: could not be checked (the check answered something unreadable)');
  });

  it('stops a child that has not answered when the runtime closes', async () => {
    const start = childThat('', undefined);
    const stop = new AbortController();
    const probing = probeProvidersQuietly(start, debugLog(), { signal: stop.signal });
    stop.abort();
    expect((await probing)[2]?.reason).toBe('cuda: could not be checked (First Frame was closing)');
    expect(start.numKilled).toBe(1);
  });
});
