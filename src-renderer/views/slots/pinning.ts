import type { SlotSnapshot } from '../../../src-main/service/contract/schemas';
import { formatBytes } from '../../components/format';

/**
 * Whether the slot's weights are locked in RAM, said for people; the runtime's own reason
 * (system limit names, byte counts) stays available on hover.
 */
/** Below this, locking weights in RAM buys nothing worth advice (the page cache keeps them). */
export const LOCK_ADVICE_MIN_BYTES = 256 * 1024 * 1024;

export function describePinning(s: Pick<SlotSnapshot, 'isPinned' | 'lockedBytes' | 'pinnedReason'>): {
  text: string;
  title: string | null;
} {
  if (s.isPinned) return { text: `locked in RAM (${formatBytes(s.lockedBytes)})`, title: null };
  const reason = s.pinnedReason ?? '';
  const overLimit = /RLIMIT_MEMLOCK: need (\d+) bytes, soft limit (\d+) bytes/.exec(reason);
  if (overLimit && Number(overLimit[1]) < LOCK_ADVICE_MIN_BYTES)
    return { text: 'not locked in RAM (a model this small does not need it)', title: reason };
  if (overLimit)
    return {
      text: `not locked in RAM: the system lets a program lock ${formatBytes(Number(overLimit[2]))}, the model needs ${formatBytes(Number(overLimit[1]))} (raise "ulimit -l" to lock it)`,
      title: reason,
    };
  if (/not built/.test(reason))
    return { text: 'not locked in RAM: the native addon is not built', title: reason };
  if (/not requested/.test(reason)) return { text: 'not locked in RAM (locking is off)', title: reason };
  if (/optimized-graph cache/.test(reason))
    return { text: 'none of ours: ONNX Runtime maps its optimized-graph cache', title: reason };
  return { text: `not locked in RAM${reason ? `: ${reason}` : ''}`, title: reason || null };
}
