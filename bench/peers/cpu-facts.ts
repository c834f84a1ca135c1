import { readFileSync } from 'node:fs';
import os from 'node:os';

/** The CPU a run measured on, so figures from different machines are never read as alike. */
export interface CpuFacts {
  vendor: string;
  model: string;
  numLogicalCores: number;
  /** The instruction sets ONNX Runtime's and llama.cpp's int8/int4 kernels pick from (absent: not offered). */
  flags: { avx2: boolean; avx512f: boolean; avx512Vnni: boolean; avxVnni: boolean; amxInt8: boolean };
}

/** This machine's CPU from /proc/cpuinfo (Linux); elsewhere the model name alone, flags unknown (false). */
export function cpuFacts(): CpuFacts {
  let info = '';
  try {
    info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    // Not Linux: os.cpus() still names the model; the flags stay false, said as "not offered".
  }
  const field = (name: string) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(info)?.[1]?.trim();
  const flags = new Set((field('flags') ?? '').split(/\s+/));
  return {
    vendor: field('vendor_id') ?? 'unknown',
    model: field('model name') ?? os.cpus()[0]?.model ?? 'unknown',
    numLogicalCores: os.availableParallelism(),
    flags: {
      avx2: flags.has('avx2'),
      avx512f: flags.has('avx512f'),
      avx512Vnni: flags.has('avx512_vnni'),
      avxVnni: flags.has('avx_vnni'),
      amxInt8: flags.has('amx_int8'),
    },
  };
}

/** One line: vendor, model, cores and the flags it has. */
export function cpuLine(cpu: CpuFacts): string {
  const present = Object.entries(cpu.flags)
    .filter(([, isPresent]) => isPresent)
    .map(([name]) => name);
  return `${cpu.model} (${cpu.vendor}, ${cpu.numLogicalCores} logical cores; ${present.join(', ') || 'none of avx2/avx512/vnni/amx'})`;
}
