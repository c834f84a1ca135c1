import { describe, expect, it } from 'vitest';
import { cpuFactsOf, cpuLine } from '../../../bench/peers/cpu-facts';

const FALLBACK = { model: 'from os.cpus()', numLogicalCores: 2 };

// Two processors' blocks, trimmed from real /proc/cpuinfo text; only the first one is read.
const EPYC = `processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 17
model name	: AMD EPYC 9R14 96-Core Processor
flags		: fpu sse2 avx avx2 avx512f avx512bw avx512_vnni avx512_bf16

processor	: 1
vendor_id	: AuthenticAMD
model name	: something else
flags		: fpu
`;

const XEON = `processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 207
model name	: Intel(R) Xeon(R) Processor
flags		: fpu avx2 avx512f avx_vnni avx512_vnni amx_bf16 amx_tile amx_int8
`;

// An ARM board: no vendor_id, model name or x86 flags.
const ARM = `processor	: 0
BogoMIPS	: 108.00
Features	: fp asimd evtstrm
CPU implementer	: 0x41
`;

describe('cpuFactsOf', () => {
  it('names vendor, model, family/model numbers and the AVX-512/VNNI flags of the first processor', () => {
    const cpu = cpuFactsOf(EPYC, FALLBACK);
    expect(cpu).toEqual({
      vendor: 'AuthenticAMD',
      model: 'AMD EPYC 9R14 96-Core Processor',
      familyNumber: 25,
      modelNumber: 17,
      numLogicalCores: 2,
      flags: { avx2: true, avx512f: true, avx512Vnni: true, avxVnni: false, amxInt8: false },
      source: '/proc/cpuinfo',
    });
    expect(cpuLine(cpu)).toBe(
      'AMD EPYC 9R14 96-Core Processor (AuthenticAMD, family 25 model 17, 2 logical cores; avx2 avx512f avx512_vnni)',
    );
  });

  it('tells AVX-VNNI and AMX apart from AVX-512 VNNI', () => {
    const cpu = cpuFactsOf(XEON, FALLBACK);
    expect(cpu.flags).toEqual({ avx2: true, avx512f: true, avx512Vnni: true, avxVnni: true, amxInt8: true });
    expect(cpu.modelNumber).toBe(207);
  });

  it('falls back to os.cpus() with flags unknown where /proc/cpuinfo is missing or not x86', () => {
    for (const text of ['', ARM]) {
      const cpu = cpuFactsOf(text, FALLBACK);
      expect(cpu).toMatchObject({
        model: 'from os.cpus()',
        vendor: 'unknown',
        flags: null,
        source: 'os.cpus()',
      });
      expect(cpuLine(cpu)).toContain('flags unknown (os.cpus())');
    }
  });
});
