import type { SlotSnapshot } from '../../../src-main/service/contract/schemas';
import { formatBytes } from '../../components/format';

/**
 * A GGUF slot's conversion while it runs, said for people: the bytes of the file read and
 * converted so far, of its total, and the share done (rounded down, so 100% only at the end).
 */
export function describeConversion(conversion: NonNullable<SlotSnapshot['conversion']>): string {
  const { bytesDone, bytesTotal } = conversion;
  const pct = bytesTotal > 0 ? Math.floor((bytesDone / bytesTotal) * 100) : 0;
  return `GGUF → ONNX, once: ${formatBytes(bytesDone)} of ${formatBytes(bytesTotal)} (${pct}%)`;
}
