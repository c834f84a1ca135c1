import { describe, expect, it } from 'vitest';
import { nativeSkipReason, runFixture } from './native-available';

interface LockState {
  isLocked: boolean;
  lockReason: string;
}

describe.skipIf(nativeSkipReason !== null)('host memory: RLIMIT_MEMLOCK is read and respected', () => {
  it('locks under a lowered soft limit, falls back to unlocked with a reason above it', () => {
    // Lowering the soft limit needs no privilege; the child inherits it. Our own check runs
    // before mlock, so this holds even for root (CAP_IPC_LOCK would let mlock itself succeed).
    const out = runFixture('memlock-child', { shellPrefix: 'ulimit -S -l 1024' }) as {
      memlockLimitBytes: number;
      small: LockState & { lockedBytes: number };
      second: LockState;
      big: LockState & { lockedBytes: number; lastByte: number };
      read: LockState & { isReadIntact: boolean };
      afterRelease: LockState;
    };
    expect(out.memlockLimitBytes).toBe(1024 * 1024);
    expect(out.small).toEqual({ isLocked: true, lockReason: 'locked', lockedBytes: 256 * 1024 });
    expect(out.second.isLocked).toBe(false);
    expect(out.second.lockReason).toMatch(
      /^exceeds RLIMIT_MEMLOCK: need 1048576 bytes, soft limit 1048576 bytes, already locked 262144 bytes$/,
    );
    expect(out.big).toMatchObject({ isLocked: false, lockedBytes: 0, lastByte: 9 });
    expect(out.big.lockReason).toMatch(/^exceeds RLIMIT_MEMLOCK/);
    expect(out.read).toMatchObject({ isLocked: false, isReadIntact: true });
    expect(out.read.lockReason).toMatch(/^exceeds RLIMIT_MEMLOCK/);
    expect(out.afterRelease).toEqual({ isLocked: true, lockReason: 'locked' });
  });
});
