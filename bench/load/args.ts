import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Slo } from '../../src-main/telemetry/report/goodput';
import { settingsUsage, takeSettingFlags } from '../../src-main/runtime/settings/flags';
import type { SettingsPatch } from '../../src-main/runtime/settings/schema';
import { SHARED_RUN_OPTIONS, dataDirOf, integer, modelDirOf, positive, sloOf } from '../run-options';
import type { ArrivalProfile } from './arrivals';
import type { LengthSpec } from './lengths';
import { parseLengthSpec } from './lengths';

/** Everything `npm run bench -- load` was asked to do. */
export interface LoadConfig {
  profile: ArrivalProfile | 'sweep';
  /** One rate per phase (req/s); sync and burst have one phase and no rate. */
  rates: (number | null)[];
  burstSize: number;
  numRequests: number;
  numWarmup: number;
  promptLengths: LengthSpec;
  outputLengths: LengthSpec;
  multiTurnShare: number;
  seed: number;
  slo: Slo | null;
  url: string | null;
  apiKey: string | null;
  modelDir: string;
  /** `--variant`: one of the folder's ONNX files (`q4`, `fp16`, …); null for its default. */
  variant: string | null;
  dataDir: string | null;
  /** Runtime settings for the in-process runtime (`--seats 2`, …); the rest stay at their defaults. */
  settings: SettingsPatch;
  isJson: boolean;
  csvPath: string | null;
  /** `--trace-out FILE.jsonl` (with --url): seed 003 records, and the sidecar FILE.meta.json. */
  traceOutPath: string | null;
}

/** Usage text, printed on a bad option. */
export const LOAD_USAGE = `npm run bench -- load [--profile sync|constant|poisson|burst|sweep] [--rate R] [--rates a,b,c]
  [--burst N] [--requests N] [--warmup N] [--prompt-tokens fixed:N|uniform:A-B|run:<runId>]
  [--output-tokens …] [--multi-turn-share 0.3] [--seed S] [--slo-ttft MS --slo-itl MS]
  [--url http://127.0.0.1:PORT/v1 [--api-key K]] [--model DIR] [--variant NAME] [--data-dir DIR | --no-store]
  [--json] [--csv FILE] [--trace-out FILE.jsonl (with --url)] [settings…]
runtime settings of the in-process runtime (default shown):
${settingsUsage()}`;

const PROFILES = ['sync', 'constant', 'poisson', 'burst', 'sweep'] as const;

/** Every option with its default (defaults are the ones printed in docs/openai-api.md). */
const OPTIONS = {
  profile: { type: 'string', default: 'poisson' },
  rate: { type: 'string', default: '2' },
  rates: { type: 'string', default: '1,2,4' },
  burst: { type: 'string', default: '8' },
  requests: { type: 'string', default: '40' },
  ...SHARED_RUN_OPTIONS,
  'multi-turn-share': { type: 'string', default: '0.3' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
  csv: { type: 'string' },
  'trace-out': { type: 'string' },
} as const;

/** Parses and checks the options; throws a message naming the bad one. */
export function parseLoadArgs(argv: string[]): LoadConfig {
  const { patch: settings, rest } = takeSettingFlags(argv);
  const { values: v } = parseArgs({ args: rest, options: OPTIONS });
  const profile = v.profile as LoadConfig['profile'];
  if (!PROFILES.includes(profile)) throw new Error(`--profile "${v.profile}": one of ${PROFILES.join(', ')}`);
  if (Boolean(v['slo-ttft']) !== Boolean(v['slo-itl']))
    throw new Error('--slo-ttft and --slo-itl go together');
  if (v.url && Object.keys(settings).length > 0)
    throw new Error(
      'runtime settings flags apply to the in-process runtime; with --url, start that server with them (npm run serve -- --seats 4)',
    );
  const traceOut = v['trace-out'];
  if (traceOut && !v.url)
    throw new Error(
      '--trace-out needs --url: it writes what a client saw of a remote engine (an in-process run is in the history: npm run export)',
    );
  if (traceOut && !traceOut.endsWith('.jsonl')) throw new Error(`--trace-out "${traceOut}": a .jsonl file`);
  return {
    profile,
    rates: ratesOf(profile, v.rate, v.rates),
    burstSize: integer(v.burst, 'burst', 1),
    numRequests: integer(v.requests, 'requests', 1),
    numWarmup: integer(v.warmup, 'warmup', 0),
    promptLengths: parseLengthSpec(v['prompt-tokens'], 'prompt-tokens'),
    outputLengths: parseLengthSpec(v['output-tokens'], 'output-tokens'),
    multiTurnShare: share(v['multi-turn-share']),
    seed: integer(v.seed, 'seed', 0),
    slo: sloOf(v['slo-ttft'], v['slo-itl']),
    url: v.url?.replace(/\/+$/, '') ?? null,
    apiKey: v['api-key'] ?? process.env['FIRST_FRAME_API_KEY'] ?? null,
    modelDir: modelDirOf(v.model),
    variant: v.variant ?? null,
    dataDir: dataDirOf(v),
    settings,
    isJson: v.json,
    csvPath: v.csv ?? null,
    traceOutPath: traceOut ? path.resolve(traceOut) : null,
  };
}

/** One rate per phase: the sweep's list, the single --rate, or no rate (sync, burst). */
function ratesOf(profile: LoadConfig['profile'], rate: string, rates: string): (number | null)[] {
  if (profile === 'sweep') return rates.split(',').map((r) => positive(r, 'rates'));
  return profile === 'constant' || profile === 'poisson' ? [positive(rate, 'rate')] : [null];
}

function share(text: string): number {
  const value = Number(text);
  if (!(value >= 0 && value <= 1)) throw new Error(`--multi-turn-share "${text}": a share from 0 to 1`);
  return value;
}
