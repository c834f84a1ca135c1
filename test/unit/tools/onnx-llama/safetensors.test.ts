import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { float32BitsToHalfBits, halfBitsToFloat } from '../../../../src-main/runtime/model/float16';
import {
  encodeSafetensors,
  parseSafetensors,
  readSafetensors,
  writeSafetensors,
} from '../../../../tools/onnx-llama/safetensors';
import type { NamedTensor } from '../../../../tools/onnx-llama/weights';

const TENSORS = new Map<string, NamedTensor>([
  ['a.weight', { data: Float32Array.from([1, -2.5, 0.1, 3e-6, 65504, -0]), shape: [2, 3] }],
  ['b', { data: Float32Array.from([0.333333, 7]), shape: [2] }],
]);

function halfOf(value: number): number {
  const bits = new Uint32Array(Float32Array.of(value).buffer)[0]!;
  return halfBitsToFloat(float32BitsToHalfBits(bits));
}

describe('safetensors', () => {
  const scratchDir = mkdtempSync(join(tmpdir(), 'onnx-llama-st-'));
  afterAll(() => rmSync(scratchDir, { recursive: true, force: true }));

  it('round-trips F32 exactly with shapes and metadata through a file', () => {
    const path = join(scratchDir, 'w.safetensors');
    writeSafetensors(path, TENSORS, 'F32', { format: 'pt' });
    const read = readSafetensors(path);
    expect(read.metadata).toEqual({ format: 'pt' });
    for (const [name, tensor] of TENSORS) {
      expect(read.tensors.get(name)!.shape).toEqual(tensor.shape);
      expect(Array.from(read.tensors.get(name)!.data)).toEqual(Array.from(tensor.data));
    }
  });

  it('pads the JSON header so tensor data starts 8-byte aligned', () => {
    const bytes = encodeSafetensors(TENSORS);
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + headerLength) % 8).toBe(0);
  });

  it('reads F16 and BF16 files as float32 within their rounding', () => {
    const f16 = parseSafetensors(encodeSafetensors(TENSORS, 'F16')).tensors.get('a.weight')!.data;
    expect(Array.from(f16)).toEqual(Array.from(TENSORS.get('a.weight')!.data).map(halfOf));
    const bf16 = parseSafetensors(encodeSafetensors(TENSORS, 'BF16')).tensors.get('b')!.data;
    expect(bf16[0]).toBeCloseTo(0.333333, 2);
    expect(bf16[1]).toBe(7);
  });

  it('rejects offsets that do not fit the declared shape', () => {
    const bytes = encodeSafetensors(new Map([['x', { data: new Float32Array(4), shape: [4] }]]));
    const header = new TextDecoder().decode(
      bytes.subarray(8, 8 + Number(new DataView(bytes.buffer).getBigUint64(0, true))),
    );
    const broken = new TextEncoder().encode(header.replace('[4]', '[5]'));
    const patched = new Uint8Array(bytes);
    patched.set(broken, 8);
    expect(() => parseSafetensors(patched)).toThrow(/tensor x offsets/);
  });
});

describe('float16 conversion', () => {
  it('rounds to nearest even and keeps subnormals, infinities and NaN', () => {
    expect(halfOf(1 + 2 ** -11)).toBe(1); // tie → even (mantissa 0)
    expect(halfOf(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9); // tie → even (round up)
    expect(halfOf(2 ** -24)).toBe(2 ** -24); // smallest subnormal
    expect(halfOf(2 ** -26)).toBe(0);
    expect(halfOf(70000)).toBe(Infinity);
    expect(halfOf(-Infinity)).toBe(-Infinity);
    expect(halfOf(NaN)).toBeNaN();
    expect(halfOf(65504)).toBe(65504);
    expect(halfOf(-0.1)).toBeCloseTo(-0.1, 4);
  });
});
