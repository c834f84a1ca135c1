import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claimSingleInstance, installQuitGate } from '../../../../src-main/host/electron/lifecycle';

/** A fake `app`: emits before-quit on quit(), like Electron, until a listener prevents it. */
class FakeApp extends EventEmitter {
  numExits = 0;
  exitCodes: number[] = [];
  hasLock = true;
  quit(): void {
    let isPrevented = false;
    this.emit('before-quit', { preventDefault: () => (isPrevented = true) });
    if (!isPrevented) this.exit(0);
  }
  exit(exitCode: number): void {
    this.numExits += 1;
    this.exitCodes.push(exitCode);
  }
  requestSingleInstanceLock(): boolean {
    return this.hasLock;
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('installQuitGate', () => {
  it('holds the quit until close resolves, closes once, then exits', async () => {
    const app = new FakeApp();
    let finishClose!: () => void;
    const close = vi.fn(() => new Promise<void>((resolve) => (finishClose = resolve)));
    const gate = installQuitGate(app, { close, log: () => {} });
    expect(gate.isAccepting()).toBe(true);
    app.quit();
    app.quit();
    expect(app.numExits).toBe(0);
    expect(gate.isAccepting()).toBe(false);
    expect(close).toHaveBeenCalledTimes(1);
    finishClose();
    await vi.waitFor(() => expect(app.numExits).toBe(1));
  });

  it('a quit after a failure closes the core first, then exits with status 1', async () => {
    const app = new FakeApp();
    let finishClose!: () => void;
    const close = vi.fn(() => new Promise<void>((resolve) => (finishClose = resolve)));
    const gate = installQuitGate(app, { close, log: () => {} });
    gate.quitWithFailure();
    expect(close).toHaveBeenCalledTimes(1);
    expect(app.numExits).toBe(0);
    finishClose();
    await vi.waitFor(() => expect(app.exitCodes).toEqual([1]));
  });

  it('an ordinary quit exits with status 0', async () => {
    const app = new FakeApp();
    installQuitGate(app, { close: () => Promise.resolve(), log: () => {} });
    app.quit();
    await vi.waitFor(() => expect(app.exitCodes).toEqual([0]));
  });

  it('still exits when close fails, and logs why', async () => {
    const app = new FakeApp();
    const log = vi.fn();
    installQuitGate(app, { close: () => Promise.reject(new Error('writer stuck')), log });
    app.quit();
    await vi.waitFor(() => expect(app.numExits).toBe(1));
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/writer stuck/));
  });

  it('exits after the timeout when close hangs', async () => {
    vi.useFakeTimers();
    const app = new FakeApp();
    const log = vi.fn();
    installQuitGate(app, { close: () => new Promise<void>(() => {}), timeoutMs: 1_000, log });
    app.quit();
    await vi.advanceTimersByTimeAsync(999);
    expect(app.numExits).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.numExits).toBe(1);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/exiting anyway/));
  });

  it('survives a close that throws synchronously', async () => {
    const app = new FakeApp();
    installQuitGate(app, {
      close: () => {
        throw new Error('sync');
      },
      log: () => {},
    });
    app.quit();
    await vi.waitFor(() => expect(app.numExits).toBe(1));
  });
});

describe('claimSingleInstance', () => {
  it('the first instance keeps running and focuses on a second launch', () => {
    const app = new FakeApp();
    const focus = vi.fn();
    expect(claimSingleInstance(app, focus)).toBe(true);
    app.emit('second-instance');
    expect(focus).toHaveBeenCalledTimes(1);
  });

  it('a second instance quits at once', () => {
    const app = new FakeApp();
    app.hasLock = false;
    expect(claimSingleInstance(app, () => {})).toBe(false);
    expect(app.numExits).toBe(1);
  });
});
