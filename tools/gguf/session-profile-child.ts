// One ONNX Runtime session built on a converted graph in a process of its own (so its resident
// memory is its own), with one of the session alternatives `session-profile.ts` compares; ORT's
// verbose log on stderr, read by the parent for the split of the build. Prints one JSON line.
// Run as `node --import tsx session-profile-child.ts '<ProfileJob as JSON>'`.

import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { sessionOptionsOf } from '../../src-main/runtime/slot-worker/session-options';
import type { RunnerOptions } from '../../src-main/runtime/slot-worker/session-options';
import { print } from '../../src-main/printable';
import { greedyDecode } from '../onnx-llama/ort-runner';
import type { ProfileFigures, ProfileJob } from './session-alternatives';

/** Prompt ids of the serving bench's length (random weights: only the length matters). */
const PROMPT = Array.from({ length: 87 }, (_, i) => 1000 + i * 37);
const NUM_STEPS = 25;

function optionsOf(job: ProfileJob): ort.InferenceSession.SessionOptions {
  const runner: RunnerOptions = {
    numThreads: job.numThreads,
    canSpinThreads: true,
    graphOptimizationLevel:
      job.alternative === 'basic' || job.saveTo
        ? 'basic'
        : job.alternative === 'optimized-copy'
          ? 'disabled'
          : 'all',
    sessionConfig: job.saveTo
      ? {
          optimized_model_external_initializers_file_name: 'graph.onnx.data',
          optimized_model_external_initializers_min_size_in_bytes: '1024',
        }
      : job.alternative === 'no-prepack'
        ? { disable_prepacking: '1' }
        : {},
    ...(job.saveTo ? { optimizedModelFilePath: job.saveTo } : {}),
  };
  // Verbose: the parent splits the build by the log's timestamps.
  return { ...sessionOptionsOf(runner), logSeverityLevel: 0, logVerbosityLevel: 0 };
}

/** Resident memory of this process in MB by kind, from /proc/self/status (Linux). */
function residentMb(): Pick<ProfileFigures, 'rssMb' | 'anonMb' | 'fileMb'> {
  const status = readFileSync('/proc/self/status', 'utf8');
  const mb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: mb('VmRSS'), anonMb: mb('RssAnon'), fileMb: mb('RssFile') };
}

async function profile(job: ProfileJob): Promise<ProfileFigures | { saved: string }> {
  const startMs = performance.now();
  const session = await ort.InferenceSession.create(job.graph, optionsOf(job));
  const buildMs = performance.now() - startMs;
  if (job.saveTo) return { saved: job.saveTo };
  const resident = residentMb();
  // Unpacked MatMulNBits runs each forward ~40× slower: one token and three steps say enough.
  const isSlow = job.alternative === 'no-prepack';
  const run = await greedyDecode(
    session,
    job.kv,
    isSlow ? PROMPT.slice(0, 1) : PROMPT,
    isSlow ? 4 : NUM_STEPS,
  );
  const steps = run.decodeStepMs.slice(1).sort((a, b) => a - b);
  return { buildMs, ...resident, prefillMs: run.prefillMs, itlP50Ms: steps[steps.length >> 1]! };
}

const job = JSON.parse(process.argv[2] ?? '{}') as ProfileJob;
print(JSON.stringify(await profile(job)));
process.exit(0);
