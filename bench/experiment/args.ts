import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Slo } from '../../src-main/telemetry/report/goodput';
import {
  parseSettingValue,
  settingByName,
  settingsUsage,
  takeSettingFlags,
} from '../../src-main/runtime/settings/flags';
import type { SettingKey } from '../../src-main/runtime/settings/declaration';
import type { SettingsPatch } from '../../src-main/runtime/settings/schema';
import { SHARED_RUN_OPTIONS, dataDirOf, integer, modelDirOf, sloOf } from '../run-options';
import type { LengthSpec } from '../load/lengths';
import { parseLengthSpec } from '../load/lengths';

/** How the arms' requests arrive: bursts of N (each after the last finished), Poisson, or a trace's own times. */
export type ExperimentWorkload =
  | { kind: 'burst'; burstSize: number }
  | { kind: 'poisson'; ratePerS: number }
  | { kind: 'trace'; path: string };

/** One arm: the setting it varies, the value as written, and the settings patch it applies. */
export interface Arm {
  label: string;
  value: string;
  patch: SettingsPatch;
}

/** Everything `npm run bench -- experiment` was asked to do. */
export interface ExperimentConfig {
  vary: { name: string; arms: Arm[] };
  workload: ExperimentWorkload;
  numRequests: number;
  /** Rounds of the whole experiment, arms interleaved (A B A B …); each arm's rounds pool into its run. */
  numRounds: number;
  numWarmup: number;
  promptLengths: LengthSpec;
  outputLengths: LengthSpec;
  seed: number;
  slo: Slo | null;
  modelDir: string;
  /** `--variant`: the folder's ONNX file every arm serves (unless the arms vary it); null: its default. */
  variant: string | null;
  dataDir: string | null;
  /** Settings every arm shares (the varied one is set per arm on top). */
  base: SettingsPatch;
  isJson: boolean;
}

/** Usage text, printed on a bad option. */
export const EXPERIMENT_USAGE = `npm run bench -- experiment --vary SETTING=A,B[,…] [--workload burst:N|poisson:RATE|trace:FILE]
  [--requests N] [--rounds N] [--warmup N] [--prompt-tokens fixed:N|uniform:A-B] [--output-tokens …] [--seed S]
  [--slo-ttft MS --slo-itl MS] [--model DIR] [--variant NAME] [--data-dir DIR | --no-store] [--json] [settings…]
SETTING is any runtime setting by its flag name (seats, kv-budget-mb, page-size, prefill-chunk,
queue-limit, threads, default-model, provider, …) or its key (maxSeats); \`variant\` varies the
model's variant (name:variant). Settings flags fix the others for every arm:
${settingsUsage()}`;

const OPTIONS = {
  vary: { type: 'string' },
  workload: { type: 'string', default: 'burst:8' },
  requests: { type: 'string' },
  rounds: { type: 'string', default: '1' },
  ...SHARED_RUN_OPTIONS,
} as const;

/** Parses and checks the options; throws a message naming the bad one. */
export function parseExperimentArgs(argv: string[]): ExperimentConfig {
  const { patch: base, rest } = takeSettingFlags(argv);
  const { values: v } = parseArgs({ args: rest, options: OPTIONS });
  if (!v.vary) throw new Error('--vary SETTING=A,B is required (e.g. --vary seats=2,4)');
  if (Boolean(v['slo-ttft']) !== Boolean(v['slo-itl']))
    throw new Error('--slo-ttft and --slo-itl go together');
  const modelDir = modelDirOf(v.model);
  const workload = parseWorkload(v.workload);
  return {
    vary: parseVary(v.vary, path.basename(modelDir)),
    workload,
    numRequests: v.requests
      ? integer(v.requests, 'requests', 1)
      : workload.kind === 'burst'
        ? 2 * workload.burstSize
        : 16,
    numRounds: integer(v.rounds, 'rounds', 1),
    numWarmup: integer(v.warmup, 'warmup', 0),
    promptLengths: parseLengthSpec(v['prompt-tokens'], 'prompt-tokens'),
    outputLengths: parseLengthSpec(v['output-tokens'], 'output-tokens'),
    seed: integer(v.seed, 'seed', 0),
    slo: sloOf(v['slo-ttft'], v['slo-itl']),
    modelDir,
    variant: v.variant ?? null,
    dataDir: dataDirOf(v),
    base,
    isJson: v.json,
  };
}

/**
 * `seats=2,4` → one arm per value, each value checked by its setting's own schema. `variant=q4,
 * fp16` varies the model reference (`<model>:<variant>`).
 */
export function parseVary(text: string, modelName: string): { name: string; arms: Arm[] } {
  const at = text.indexOf('=');
  const name = at > 0 ? text.slice(0, at) : '';
  const values =
    at > 0
      ? text
          .slice(at + 1)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  if (!name || values.length < 2)
    throw new Error(`--vary "${text}": write SETTING=A,B with at least two values`);
  if (new Set(values).size !== values.length) throw new Error(`--vary "${text}": the values repeat`);
  if (name === 'variant')
    return {
      name,
      arms: values.map((value) => armOf(name, value, 'defaultModel', `${modelName}:${value}`)),
    };
  const key = settingByName(name);
  if (!key) throw new Error(`--vary "${text}": no runtime setting is called "${name}" (see the list below)`);
  return { name, arms: values.map((value) => armOf(name, value, key, value)) };
}

function armOf(name: string, value: string, key: SettingKey, text: string): Arm {
  return { label: `${name}=${value}`, value, patch: { [key]: parseSettingValue(key, text) } };
}

/** `burst:8`, `poisson:2.5` or `trace:FILE`. */
export function parseWorkload(text: string): ExperimentWorkload {
  const [kind, rest = ''] = text.split(/:(.*)/s, 2);
  if (kind === 'burst' && /^\d+$/.test(rest) && Number(rest) >= 1) return { kind, burstSize: Number(rest) };
  if (kind === 'poisson' && Number(rest) > 0) return { kind, ratePerS: Number(rest) };
  if (kind === 'trace' && rest.length > 0) return { kind, path: path.resolve(rest) };
  throw new Error(`--workload "${text}": write burst:N, poisson:RATE or trace:FILE`);
}
