/**
 * `npm run bench -- step-profile [--model DIR] [--variant q4] [--threads N] [--prompt-tokens N]
 * [--output-tokens N] [--runs N] [--json]`: where one warm decode step's wall time goes, thread
 * by thread. Each round runs one greedy request through the runtime with its slot worker stamping
 * (step-trace.ts), then the floor (bare session.run of the same graph, this thread) on the same
 * ids; reports each part's median over every warm step of every round beside the ITL and the floor.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { collectGeneration } from '../../src-main/runtime/collect';
import { slotSessionThreadsOf } from '../../src-main/runtime/runtime-parts';
import {
  STEP_TRACE_ENV,
  collectStepTraces,
  startStepTrace,
} from '../../src-main/runtime/slot-worker/step-trace';
import { integer, modelDirOf } from '../run-options';
import { print, printStatus } from '../../src-main/printable';
import { Floor } from '../first-frame/floor';
import { promptOfTokens } from '../first-frame/prompts';
import { openModelRuntime } from '../load/model-runtime';
import { percentiles } from '../load/summary';
import { cpuFacts, cpuLine } from '../peers/cpu-facts';
import type { StepCycle } from './cycles';
import { stepCyclesOf } from './cycles';

/** Entry point for `npm run bench -- step-profile`. */
export async function run(argv: string[]): Promise<number> {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      variant: { type: 'string', default: 'q4' },
      threads: { type: 'string', default: '1' },
      'prompt-tokens': { type: 'string', default: '128' },
      'output-tokens': { type: 'string', default: '64' },
      runs: { type: 'string', default: '5' },
      json: { type: 'boolean', default: false },
    },
  });
  const workload = {
    numThreads: integer(v.threads, 'threads', 1),
    numPromptTokens: integer(v['prompt-tokens'], 'prompt-tokens', 1),
    numOutputTokens: integer(v['output-tokens'], 'output-tokens', 1),
    numRuns: integer(v.runs, 'runs', 1),
  };
  const modelDir = modelDirOf(v.model);
  // Before the runtime starts: its workers (the spare included) read it at their start.
  process.env[STEP_TRACE_ENV] = '1';
  // A cycle here is one job's step: a decode burst would fold several steps into one cycle.
  process.env.FF_DECODE_BURST = 'off';
  startStepTrace('main');
  const onProgress = (label: string) => v.json || printStatus(label, 48);
  const opened = await openModelRuntime(
    modelDir,
    { numThreads: workload.numThreads, maxSeats: 4 },
    v.variant,
  );
  const { runtime, modelId, model } = opened;
  const floor = await Floor.open(model, slotSessionThreadsOf(runtime.options));
  const cycles: StepCycle[] = [];
  const itlMs: number[] = [];
  const floorMs: number[] = [];
  try {
    const { tokenizer } = model.folder;
    const ask = async (text: string) => {
      const result = await collectGeneration(runtime, {
        requestId: `step-profile-${Math.random()}`,
        modelId,
        prompt: { kind: 'text', text },
        maxTokens: workload.numOutputTokens,
        temperature: 0,
        ignoreEos: true,
      });
      if (result.timeline.finishReason !== 'length') throw new Error(`request ended: ${result.errorMessage}`);
      return result.timeline.itlMs;
    };
    await ask(promptOfTokens(tokenizer, workload.numPromptTokens, 9000));
    await floor.decodeStepsMs(tokenizer.encode(promptOfTokens(tokenizer, workload.numPromptTokens, 9000)), 4);
    for (let round = 1; round <= workload.numRuns; round++) {
      const text = promptOfTokens(tokenizer, workload.numPromptTokens, 9000 + round);
      await collectStepTraces();
      itlMs.push(...(await ask(text)));
      const traces = await collectStepTraces();
      const main = traces.find((t) => t.thread === 'main');
      const worker = traces
        .filter((t) => t.thread === 'worker')
        .sort((a, b) => b.marks.length - a.marks.length)[0];
      if (!main || !worker) throw new Error('no step trace came back from the slot worker');
      cycles.push(...stepCyclesOf(main, worker));

      floorMs.push(...(await floor.decodeStepsMs(tokenizer.encode(text), workload.numOutputTokens - 1)));
      onProgress(`round ${round}/${workload.numRuns}`);
    }
  } finally {
    await floor.close();
    await runtime.close();
  }
  const report = profileReport(modelId, workload, cycles, itlMs, floorMs);
  if (v.json) print(JSON.stringify(report, null, 2));
  else printProfile(report);
  return 0;
}

const PARTS = {
  worker_before_run_ms:
    'worker: reply built → session.run called (batch, ids, feeds of the step run ahead; the reply is posted after, beside the run)',
  post_message_ms:
    'worker: postMessage of the reply, called → returned (beside the run ahead, off the cycle)',
  run_ms: 'worker: the onnxruntime-node session.run call (its setImmediate hop and output wrapping included)',
  worker_after_run_ms: 'worker: outputs arrived → token sampled (logits, K/V advance, pages, sampling)',
  wait_for_job_ms:
    "worker: token sampled → next job's message event, where that came later (idle, waiting for the main thread), else 0",
  worker_reply_ms: 'worker: token sampled or job received, whichever later → reply built',
  cycle_ms: 'worker: reply built → the next one (one decode step as the worker runs them)',
  hop_to_main_ms: 'reply handed to postMessage (worker) → its message event on the main thread',
  main_apply_ms: 'main: reply message event → token flushed, scheduler told',
  main_plan_ms: 'main: reply applied → next job posted (plan, build, postMessage)',
  hop_to_worker_ms:
    "job posted → worker's message event, where the worker's event loop was free (else it queued behind a native run)",
  main_gc_ms: "main thread's GC pauses within the cycle (perf_hooks 'gc' entries, summed)",
  worker_gc_ms: "worker's GC pauses within the cycle (perf_hooks 'gc' entries, summed)",
} as const;

const FIELDS: Record<keyof typeof PARTS, keyof StepCycle> = {
  worker_before_run_ms: 'workerBeforeRunMs',
  post_message_ms: 'postMessageMs',
  run_ms: 'runMs',
  worker_after_run_ms: 'workerAfterRunMs',
  wait_for_job_ms: 'waitForJobMs',
  worker_reply_ms: 'workerReplyMs',
  cycle_ms: 'cycleMs',
  hop_to_main_ms: 'hopToMainMs',
  main_apply_ms: 'mainApplyMs',
  main_plan_ms: 'mainPlanMs',
  hop_to_worker_ms: 'hopToWorkerMs',
  main_gc_ms: 'mainGcMs',
  worker_gc_ms: 'workerGcMs',
};

function profileReport(
  modelId: string,
  workload: { numThreads: number; numPromptTokens: number; numOutputTokens: number; numRuns: number },
  cycles: readonly StepCycle[],
  itlMs: number[],
  floorMs: number[],
) {
  const parts = Object.fromEntries(
    Object.entries(FIELDS).map(([key, field]) => {
      const values = cycles.map((c) => c[field]).filter((x): x is number => x !== null);
      return [key, { ...percentiles(values), boundary: PARTS[key as keyof typeof PARTS] }];
    }),
  );
  const itl = percentiles(itlMs);
  const floor = percentiles(floorMs);
  return {
    benchmark: 'step-profile',
    model: modelId,
    machine: { cpu: cpuFacts(), loadavg_1m: Number(os.loadavg()[0]!.toFixed(2)) },
    workload: {
      ...workload,
      request: `${workload.numRuns} greedy requests of a ~${workload.numPromptTokens}-token prompt, ${workload.numOutputTokens} output tokens each (end tokens ignored), one at a time, one decode step per job (decode bursts off); the floor decodes the same ids after each`,
      warm_steps: `${cycles.length} decode steps run ahead (the prefill's and the first decode's left out)`,
    },
    statistic:
      'nearest-rank percentiles over every warm step of every round; parts are independent medians (they need not sum)',
    itl_ms: {
      ...itl,
      boundary: 'gaps between the tokens as the worker produced them (the runtime timeline)',
    },
    floor_step_ms: {
      ...floor,
      boundary: 'bare session.run decode step + greedy argmax on the bench thread, same graph and threads',
    },
    itl_over_floor: itl.p50 !== null && floor.p50 ? itl.p50 / floor.p50 : null,
    parts,
  };
}

function printProfile(report: ReturnType<typeof profileReport>): void {
  const ms = (value: number | null | undefined) => (value == null ? 'n/a' : value.toFixed(3)).padStart(9);
  print(
    `\nstep profile — ${report.model} on ${cpuLine(report.machine.cpu)}, load average ${report.machine.loadavg_1m}`,
  );
  print(
    `workload: ${report.workload.request}; ${report.workload.numThreads} thread(s); ${report.workload.warm_steps}`,
  );
  print(`statistic: ${report.statistic}`);
  print(`${'part'.padEnd(22)}${'p50'.padStart(9)}${'p90'.padStart(9)}${'mean'.padStart(9)}   boundary`);
  const row = (
    name: string,
    p: { p50: number | null; p90: number | null; mean: number | null; boundary: string },
  ) => print(`${name.padEnd(22)}${ms(p.p50)}${ms(p.p90)}${ms(p.mean)}   ${p.boundary}`);
  row('ITL', report.itl_ms);
  row('floor step', report.floor_step_ms);
  for (const [name, p] of Object.entries(report.parts)) row(name.replace(/_ms$/, ''), p);
  print(`ITL p50 ÷ floor p50: ${report.itl_over_floor?.toFixed(3) ?? 'n/a'}`);
}
