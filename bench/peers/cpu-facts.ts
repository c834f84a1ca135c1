import { readFileSync } from 'node:fs';
import os from 'node:os';

/** The instruction sets ONNX Runtime's and llama.cpp's int8/int4 kernels pick from, by /proc/cpuinfo flag. */
const FLAG_NAMES = {
  avx2: 'avx2',
  avx512f: 'avx512f',
  avx512Vnni: 'avx512_vnni',
  avxVnni: 'avx_vnni',
  amxInt8: 'amx_int8',
} as const;

/** The CPU a run measured on, so figures from different machines are never read as alike. */
export interface CpuFacts {
  vendor: string;
  model: string;
  /** x86 `cpu family` and `model` numbers (one model name covers several generations); null where not said. */
  familyNumber: number | null;
  modelNumber: number | null;
  numLogicalCores: number;
  /** Whether each instruction set is offered; null when the flags could not be read (not Linux x86). */
  flags: Record<keyof typeof FLAG_NAMES, boolean> | null;
  /** Where the facts came from: /proc/cpuinfo, or os.cpus() (model name only). */
  source: '/proc/cpuinfo' | 'os.cpus()';
}

/** What os.cpus() and the core count say, for when /proc/cpuinfo is missing or says too little. */
export interface CpuFallback {
  model: string;
  numLogicalCores: number;
}

/** The facts of the first processor in /proc/cpuinfo's text; `fallback` where it has none. Pure. */
export function cpuFactsOf(cpuinfo: string, fallback: CpuFallback): CpuFacts {
  // Only the first processor's block: every core of one machine says the same.
  const block = cpuinfo.split(/\n\s*\n/)[0] ?? '';
  const field = (name: string) => new RegExp(`^${name}\\s*:[ \\t]*(.*)$`, 'm').exec(block)?.[1]?.trim();
  const number = (name: string) => {
    const value = Number.parseInt(field(name) ?? '', 10);
    return Number.isInteger(value) ? value : null;
  };
  const model = field('model name');
  const flagText = field('flags');
  const present = new Set((flagText ?? '').split(/\s+/));
  return {
    vendor: field('vendor_id') ?? 'unknown',
    model: model ?? fallback.model,
    familyNumber: number('cpu family'),
    modelNumber: number('model'),
    numLogicalCores: fallback.numLogicalCores,
    flags:
      flagText === undefined
        ? null
        : (Object.fromEntries(
            Object.entries(FLAG_NAMES).map(([key, flag]) => [key, present.has(flag)]),
          ) as CpuFacts['flags']),
    source: model === undefined ? 'os.cpus()' : '/proc/cpuinfo',
  };
}

/** This machine's CPU from /proc/cpuinfo (Linux); elsewhere os.cpus()'s model name, flags unknown. */
export function cpuFacts(): CpuFacts {
  let info = '';
  try {
    info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    // Not Linux: os.cpus() still names the model; the facts say where they came from.
  }
  return cpuFactsOf(info, {
    model: os.cpus()[0]?.model ?? 'unknown',
    numLogicalCores: os.availableParallelism(),
  });
}

/** One line: model, vendor, family/model numbers, cores and the flags it has. */
export function cpuLine(cpu: CpuFacts): string {
  const numbers =
    cpu.familyNumber === null ? '' : `, family ${cpu.familyNumber} model ${cpu.modelNumber ?? '?'}`;
  const flags = cpu.flags
    ? Object.entries(cpu.flags)
        .filter(([, isPresent]) => isPresent)
        .map(([name]) => FLAG_NAMES[name as keyof typeof FLAG_NAMES])
        .join(' ') || `none of ${Object.values(FLAG_NAMES).join(' ')}`
    : `flags unknown (${cpu.source})`;
  return `${cpu.model} (${cpu.vendor}${numbers}, ${cpu.numLogicalCores} logical cores; ${flags})`;
}
