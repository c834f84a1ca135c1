/**
 * `npm run bench -- step-nodes [--model DIR] [--variant q4] [--graph FILE] [--past 128,2000]
 * [--steps 16] [--threads 1] [--spin] [--json]`: ONNX Runtime's own profile of warm decode steps
 * on the bound run path (K/V in place), at each length of past: ms per operator type and the
 * nodes that grow with the past. `--graph` runs another form of the same model (same inputs and
 * outputs) in place of the variant's file, to compare graph forms inside ONNX Runtime.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { integer, modelDirOf } from '../run-options';
import { print } from '../../src-main/printable';
import { runnerSpecOf } from '../../src-main/runtime/slot-worker/open-runner';
import { BoundRunner } from '../../src-main/runtime/slot-worker/ort-binding/bound-runner';
import { argmax } from '../../src-main/runtime/sampling/sampler';
import { openModelRuntime } from '../load/model-runtime';
import { percentiles } from '../load/summary';
import { cpuFacts, cpuLine } from '../peers/cpu-facts';

/** One kernel event of ONNX Runtime's profile (Chrome trace format). */
interface KernelEvent {
  cat: string;
  name: string;
  ts: number;
  dur: number;
  args?: { op_name?: string };
}

/** The profile of one past length: step wall ms and per-op/per-node kernel ms, medians over steps. */
export interface PastProfile {
  numPast: number;
  stepMsP50: number;
  kernelMsP50: number;
  opMs: Record<string, number>;
  nodeMs: Record<string, number>;
}

/** Median of a non-empty list (0 for an empty one). */
const median = (values: number[]): number => percentiles(values).p50 ?? 0;

/**
 * Per-step kernel ms by operator and by node, from the `model_run` spans `runs` (indices into
 * the profile's runs) of a profile's events: each value is the median over those steps.
 */
export function kernelMsOfRuns(events: readonly KernelEvent[], runs: readonly number[]) {
  const spans = events.filter((e) => e.cat === 'Session' && e.name === 'model_run');
  const kernels = events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
  const perStepOp = new Map<string, number[]>();
  const perStepNode = new Map<string, number[]>();
  const totals: number[] = [];
  runs.forEach((runIndex, step) => {
    const span = spans[runIndex]!;
    let total = 0;
    for (const k of kernels) {
      if (k.ts < span.ts || k.ts > span.ts + span.dur) continue;
      const op = k.args?.op_name ?? '?';
      const node = k.name.replace(/_kernel_time$/, '');
      for (const [map, key] of [
        [perStepOp, op],
        [perStepNode, node],
      ] as const) {
        const row = map.get(key) ?? Array<number>(runs.length).fill(0);
        row[step]! += k.dur / 1000;
        map.set(key, row);
      }
      total += k.dur / 1000;
    }
    totals.push(total);
  });
  const medians = (map: Map<string, number[]>) =>
    Object.fromEntries([...map].map(([key, row]) => [key, median(row)]).sort((a, b) => +b[1]! - +a[1]!));
  return { kernelMsP50: median(totals), opMs: medians(perStepOp), nodeMs: medians(perStepNode) };
}

/** Entry point for `npm run bench -- step-nodes`. */
export async function run(argv: string[]): Promise<number> {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      variant: { type: 'string', default: 'q4' },
      graph: { type: 'string' },
      past: { type: 'string', default: '128,2000' },
      steps: { type: 'string', default: '16' },
      threads: { type: 'string', default: '1' },
      spin: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const pasts = v.past.split(',').map((text) => integer(text.trim(), 'past', 1));
  const numSteps = integer(v.steps, 'steps', 1);
  const modelDir = modelDirOf(v.model);
  const { runtime, model } = await openModelRuntime(modelDir, { numThreads: 1, maxSeats: 1 }, v.variant);
  await runtime.close();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-step-nodes-'));
  const options = {
    numThreads: integer(v.threads, 'threads', 1),
    canSpinThreads: v.spin,
    profileFilePrefix: path.join(dir, 'nodes'),
  };
  const capacity = Math.max(...pasts) + numSteps + 8;
  const size = { maxRows: 1, capacity, vocabSize: model.folder.shape.vocabSize };
  const graph = v.graph ? path.resolve(v.graph) : model.graph.onnxPath;
  const runner = await BoundRunner.open(graph, runnerSpecOf(model), options, size);
  const row = { first: 0, count: 1 };
  const stepsOf: number[][] = [];
  const wallOf: number[][] = [];
  const greedyOf: number[][] = [];
  let numRuns = 0;
  try {
    for (const numPast of pasts) {
      runner.kv.clear(0);
      const prompt = BigInt64Array.from({ length: numPast }, (_, i) => BigInt(1 + ((i * 7919) % 4000)));
      let result = await runner.forward(row, prompt, numPast);
      numRuns++;
      let tokenId = argmax(result.logits.subarray((result.numPositions - 1) * result.vocabSize));
      const runs: number[] = [];
      const wall: number[] = [];
      const ids: number[] = [tokenId];
      for (let step = 0; step < numSteps; step++) {
        const startMs = performance.now();
        result = await runner.forward(row, BigInt64Array.of(BigInt(tokenId)), 1);
        tokenId = argmax(result.logits.subarray(0, result.vocabSize));
        wall.push(performance.now() - startMs);
        ids.push(tokenId);
        // The first two steps after a prefill warm the kernels' buffers: left out.
        if (step >= 2) runs.push(numRuns);
        numRuns++;
      }
      stepsOf.push(runs);
      wallOf.push(wall.slice(2));
      greedyOf.push(ids);
    }
  } finally {
    runner.endProfiling();
    runner.release();
  }
  const [file] = readdirSync(dir).filter((name) => name.endsWith('.json'));
  const events = JSON.parse(readFileSync(path.join(dir, file!), 'utf8')) as KernelEvent[];
  rmSync(dir, { recursive: true, force: true });
  const profiles: PastProfile[] = pasts.map((numPast, i) => ({
    numPast,
    stepMsP50: median(wallOf[i]!),
    ...kernelMsOfRuns(events, stepsOf[i]!),
  }));
  const cpu = cpuFacts();
  if (v.json) {
    print(
      JSON.stringify({
        cpu,
        graph,
        options: { ...options, profileFilePrefix: undefined },
        profiles,
        greedy: greedyOf,
      }),
    );
    return 0;
  }
  print(`${cpuLine(cpu)}\ngraph ${graph}, ${options.numThreads} thread(s), spin ${options.canSpinThreads}`);
  for (const p of profiles) {
    print(
      `\npast ${p.numPast}: step p50 ${p.stepMsP50.toFixed(2)} ms, kernels ${p.kernelMsP50.toFixed(2)} ms`,
    );
    for (const [op, ms] of Object.entries(p.opMs)) print(`  ${op.padEnd(34)} ${ms.toFixed(3)}`);
    const top = Object.entries(p.nodeMs).slice(0, 6);
    for (const [node, ms] of top) print(`    ${node.padEnd(48)} ${ms.toFixed(3)}`);
  }
  print(`\ngreedy ids: ${greedyOf.map((ids) => ids.join(' ')).join(' | ')}`);
  return 0;
}
