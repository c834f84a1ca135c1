/**
 * `npm run bench -- prefetch [--file F] [--reps N] [--json] [--keep-memlock]`
 *
 * Workload: one file (default: the shipped model, else a generated ~100 MB temp file) read
 * whole into a host buffer, cold (posix_fadvise DONTNEED before every read), in four arms —
 * plain, WILLNEED hint, locked (mlock), locked + WILLNEED — interleaved in one run with the
 * arm order rotated per repetition. Boundary: readFileInto call → buffer ready (lock, hint
 * and preads included; DONTNEED excluded). Percentiles: nearest rank (median, p95).
 * To lock a whole model the bench raises its own soft RLIMIT_MEMLOCK, or, when it may not,
 * asks mlock to go past it (works only with CAP_IPC_LOCK); --keep-memlock does neither, so the
 * locked arms behave exactly as a slot would under the current limit.
 */
import { randomFillSync } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadHostMemory } from '../src-main/runtime/host-memory/loader';
import type { MsSummary, PrefetchSample } from '../src-main/runtime/host-memory/prefetch-measure';
import {
  armsForRep,
  COLD_THRESHOLD_PCT,
  measureColdPrefetch,
  PREFETCH_ARMS,
  summarizeMs,
} from '../src-main/runtime/host-memory/prefetch-measure';
import type { HostMemory, MemlockLimit } from '../src-main/runtime/host-memory/types';
import { print, printError } from '../src-main/printable';

const DEFAULT_MODEL = 'resources/models/ff-austen-mini/onnx/model.onnx';
const GENERATED_BYTES = 100 * 1024 * 1024;

interface BenchFile {
  path: string;
  numBytes: number;
  isGenerated: boolean;
  cleanup: () => void;
}

/** The file to read: --file, else the default model, else a generated random temp file. */
function pickFile(flagFile: string | undefined): BenchFile {
  const chosen = flagFile ?? (existsSync(DEFAULT_MODEL) ? DEFAULT_MODEL : undefined);
  if (chosen) {
    const path = resolve(chosen);
    return { path, numBytes: statSync(path).size, isGenerated: false, cleanup: () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ff-prefetch-'));
  const path = join(dir, 'weights.bin');
  const fd = openSync(path, 'w');
  const chunk = new Uint8Array(8 * 1024 * 1024);
  for (let written = 0; written < GENERATED_BYTES; written += chunk.length) {
    const numBytes = Math.min(chunk.length, GENERATED_BYTES - written);
    writeSync(fd, randomFillSync(chunk), 0, numBytes);
  }
  closeSync(fd);
  return {
    path,
    numBytes: GENERATED_BYTES,
    isGenerated: true,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Whether DONTNEED really empties the page cache for this file (containers may ignore it). */
function checkPageCache(
  memory: HostMemory,
  path: string,
): { canDrop: boolean | null; residentPctAfterDrop: number | null; note: string } {
  const advice = memory.adviseDontNeed(path);
  const residency = memory.residency(path);
  if (!advice.isApplied || residency === null) {
    return {
      canDrop: null,
      residentPctAfterDrop: null,
      note: `page cache cannot be dropped or observed (${advice.reason}): reads may be warm`,
    };
  }
  const canDrop = residency.residentPct <= COLD_THRESHOLD_PCT;
  const note = canDrop
    ? `page cache dropped: ${residency.residentPct.toFixed(1)}% resident after DONTNEED`
    : `kernel kept ${residency.residentPct.toFixed(1)}% resident after DONTNEED: reads are NOT cold`;
  return { canDrop, residentPctAfterDrop: residency.residentPct, note };
}

interface MemlockPlan {
  limitBefore: MemlockLimit;
  limitAfter: MemlockLimit;
  /** Locked arms ask to lock past RLIMIT_MEMLOCK (kernel allows it only with CAP_IPC_LOCK). */
  isLimitBypassed: boolean;
  note: string;
}

/**
 * Makes room to lock the file: raise the soft limit, else ask the addon to try mlock past it.
 * The slot registry never does either; this is a measurement.
 */
function prepareMemlock(memory: HostMemory, numBytes: number, isKept: boolean): MemlockPlan {
  const limitBefore = memory.capabilities().memlockLimitBytes;
  const needBytes = numBytes + (memory.capabilities().lockedBytes ?? 0) + 16 * 1024 * 1024;
  const plan = { limitBefore, limitAfter: limitBefore, isLimitBypassed: false };
  if (limitBefore === 'unlimited' || (typeof limitBefore === 'number' && limitBefore >= needBytes)) {
    return { ...plan, note: 'RLIMIT_MEMLOCK already fits the file' };
  }
  if (isKept || limitBefore === null) {
    return { ...plan, note: 'RLIMIT_MEMLOCK left as is: locked arms may run unlocked (see pinned_reason)' };
  }
  const result = memory.setMemlockLimit(needBytes);
  const limitAfter = memory.capabilities().memlockLimitBytes;
  if (result.isApplied)
    return { ...plan, limitAfter, note: `raised soft RLIMIT_MEMLOCK to ${needBytes} bytes for this process` };
  const note = `could not raise RLIMIT_MEMLOCK (${result.reason}): locked arms try mlock past it (works only with CAP_IPC_LOCK; see pinned_reason)`;
  return { ...plan, isLimitBypassed: true, note };
}

interface ArmReport {
  arm: string;
  total: MsSummary;
  medianLockMs: number;
  medianAdviseMs: number;
  medianReadMs: number;
  numCold: number;
  samplesMs: number[];
  slot: PrefetchSample['slot'];
}

function reportArm(arm: string, samples: PrefetchSample[]): ArmReport {
  const mine = samples.filter((s) => s.arm === arm);
  const last = mine[mine.length - 1];
  if (!last) throw new Error(`no samples for arm ${arm}`);
  return {
    arm,
    total: summarizeMs(mine.map((s) => s.totalMs)),
    medianLockMs: summarizeMs(mine.map((s) => s.lockMs)).medianMs,
    medianAdviseMs: summarizeMs(mine.map((s) => s.adviseMs)).medianMs,
    medianReadMs: summarizeMs(mine.map((s) => s.readMs)).medianMs,
    numCold: mine.filter((s) => s.isCold === true).length,
    samplesMs: mine.map((s) => Math.round(s.totalMs * 100) / 100),
    slot: last.slot,
  };
}

/** Each arm's median and p95 divided by the plain arm's (>1 = slower than plain). */
function ratios(arms: ArmReport[]): Record<string, { median: number; p95: number }> {
  const base = arms.find((a) => a.arm === 'plain');
  const out: Record<string, { median: number; p95: number }> = {};
  if (!base) return out;
  for (const a of arms) {
    if (a.arm === 'plain') continue;
    out[`${a.arm}/plain`] = {
      median: round3(a.total.medianMs / base.total.medianMs),
      p95: round3(a.total.p95Ms / base.total.p95Ms),
    };
  }
  return out;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

async function runArms(
  memory: HostMemory,
  path: string,
  numReps: number,
  isLimitBypassed: boolean,
): Promise<PrefetchSample[]> {
  const options = { lockBeyondLimit: isLimitBypassed };
  for (const arm of PREFETCH_ARMS) await measureColdPrefetch(memory, path, arm, options); // warm-up, discarded
  const samples: PrefetchSample[] = [];
  for (let rep = 0; rep < numReps; rep += 1) {
    for (const arm of armsForRep(rep)) samples.push(await measureColdPrefetch(memory, path, arm, options));
  }
  return samples;
}

function printText(result: ReturnType<typeof buildResult>): void {
  const mib = (result.file.numBytes / 1024 / 1024).toFixed(1);
  print(
    `prefetch: ${result.file.path} (${mib} MiB${result.file.isGenerated ? ', generated' : ''}), ${result.numReps} reps × 4 arms interleaved`,
  );
  print(`host memory: ${result.capabilities.nativeReason}`);
  print(`page cache: ${result.pageCache.note}`);
  print(`memlock: ${result.memlock.note}`);
  print('arm               median ms   p95 ms   lock ms  advise ms  read ms  cold  pinned');
  for (const a of result.arms) {
    const cells = [a.total.medianMs, a.total.p95Ms, a.medianLockMs, a.medianAdviseMs, a.medianReadMs].map(
      (v) => v.toFixed(1).padStart(9),
    );
    print(
      `${a.arm.padEnd(16)} ${cells.join('')}  ${String(a.numCold).padStart(2)}/${a.total.numSamples}  ${a.slot.pinned ? 'yes' : 'no'} (${a.slot.pinned_reason})`,
    );
  }
  for (const [name, r] of Object.entries(result.ratios))
    print(`ratio ${name.padEnd(22)} median ${r.median.toFixed(3)}  p95 ${r.p95.toFixed(3)}`);
}

function buildResult(
  memory: HostMemory,
  file: BenchFile,
  numReps: number,
  extra: { pageCache: ReturnType<typeof checkPageCache>; memlock: MemlockPlan; samples: PrefetchSample[] },
) {
  const arms = PREFETCH_ARMS.map((arm) => reportArm(arm.name, extra.samples));
  return {
    bench: 'prefetch',
    boundary: 'readFileInto call → buffer ready; cold = DONTNEED before each read',
    percentiles: 'nearest-rank',
    file: { path: file.path, numBytes: file.numBytes, isGenerated: file.isGenerated },
    numReps,
    capabilities: memory.capabilities(),
    pageCache: extra.pageCache,
    memlock: extra.memlock,
    arms,
    ratios: ratios(arms),
  };
}

/**
 * Cold prefetch of one file, plain vs WILLNEED vs locked vs both, interleaved: the same
 * measurement `bench -- first-frame` carries for its model file. `keepMemlock` leaves the
 * process's RLIMIT_MEMLOCK as it is.
 */
export async function measurePrefetchArms(path: string, numReps: number, keepMemlock = false) {
  const memory = loadHostMemory();
  const file = pickFile(path);
  const pageCache = checkPageCache(memory, file.path);
  const memlock = prepareMemlock(memory, file.numBytes, keepMemlock);
  const samples = await runArms(memory, file.path, numReps, memlock.isLimitBypassed);
  return buildResult(memory, file, numReps, { pageCache, memlock, samples });
}

/** Runs the benchmark; exit code 0 on success, 2 on bad arguments. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      file: { type: 'string' },
      reps: { type: 'string', default: '9' },
      json: { type: 'boolean', default: false },
      'keep-memlock': { type: 'boolean', default: false },
    },
  });
  const numReps = Number(values.reps);
  if (!Number.isInteger(numReps) || numReps < 1) {
    printError('--reps must be a positive integer');
    return 2;
  }
  const memory = loadHostMemory();
  const file = pickFile(values.file);
  try {
    const pageCache = checkPageCache(memory, file.path);
    const memlock = prepareMemlock(memory, file.numBytes, values['keep-memlock']);
    const samples = await runArms(memory, file.path, numReps, memlock.isLimitBypassed);
    const result = buildResult(memory, file, numReps, { pageCache, memlock, samples });
    if (values.json) print(JSON.stringify(result, null, 2));
    else printText(result);
    return 0;
  } finally {
    file.cleanup();
  }
}
