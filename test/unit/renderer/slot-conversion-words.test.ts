import { describe, expect, it } from 'vitest';
import { describeConversion } from '../../../src-renderer/views/slots/conversion';

describe('describeConversion', () => {
  it('says the bytes converted of the total and the share, rounded down until the end', () => {
    const said = describeConversion({ bytesDone: 1_900_000, bytesTotal: 3_800_000, startedAtWallMs: 0 });
    expect(said).toMatch(/^GGUF → ONNX, once: 1\.8 MiB of 3\.6 MiB \(50%\)$/);
    expect(describeConversion({ bytesDone: 3_799_999, bytesTotal: 3_800_000, startedAtWallMs: 0 })).toMatch(
      /\(99%\)$/,
    );
    expect(describeConversion({ bytesDone: 3_800_000, bytesTotal: 3_800_000, startedAtWallMs: 0 })).toMatch(
      /\(100%\)$/,
    );
  });

  it('says 0% for a file whose tensors hold no bytes, not a division by zero', () => {
    expect(describeConversion({ bytesDone: 0, bytesTotal: 0, startedAtWallMs: 0 })).toMatch(/\(0%\)$/);
  });
});
