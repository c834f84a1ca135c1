import { z } from 'zod';
import { EXECUTION_PROVIDERS } from '../engine/providers';
import type { ExecutionProvider } from '../engine/providers';

/**
 * How far a change reaches. `request`: the next request sees it. `engine`: the scheduler
 * uses it from its next step (running requests keep their seats). `slots`: every resident
 * slot is unloaded and rebuilt on next use, and the context pages are dropped, so it is
 * applied only while nothing is running.
 */
export const APPLY_LEVELS = ['request', 'engine', 'slots'] as const;
/** See APPLY_LEVELS. */
export type ApplyLevel = (typeof APPLY_LEVELS)[number];

/** Largest output a request may ask for (tokens): the one bound every output limit shares. */
export const MAX_OUTPUT_TOKENS_BOUND = 32_768;
/** Largest prompt a request may send (tokens). */
export const MAX_INPUT_TOKENS_BOUND = 1_000_000;
/** Longest deadline a request may set (ms): one hour. */
export const MAX_DEADLINE_MS = 3_600_000;

const MIB = 1024 * 1024;

/** One runtime setting: its schema and default, how it reads on a command line and in the UI. */
export interface SettingSpec<T> {
  schema: z.ZodType<T>;
  defaultValue: T;
  label: string;
  help: string;
  level: ApplyLevel;
  /** Command-line flag (`--seats`), shared by `npm run serve` and the benches. */
  flag: string;
  /** Flag text → value (before the schema checks it); throws with what to write. */
  parse(text: string): unknown;
  /** Value → the text `parse` reads back (also what tables print). */
  format(value: T): string;
}

const int = (text: string): number => {
  if (!/^-?\d+$/.test(text.trim())) throw new Error(`"${text}" is not a whole number`);
  return Number(text);
};
const orNull =
  (word: string, inner: (text: string) => unknown) =>
  (text: string): unknown =>
    text === word ? null : inner(text);
const formatOr = (word: string) => (value: number | null) => (value === null ? word : String(value));
const intIn = (min: number, max: number) => z.number().int().min(min).max(max);

const spec = <T>(s: SettingSpec<T>): SettingSpec<T> => s;

/**
 * Every runtime setting a user may vary, declared once: the settings schema, the defaults,
 * the command-line flags, the Settings panel and the run config all derive from this table.
 */
export const SETTINGS = {
  maxSeats: spec<number>({
    schema: intIn(1, 64),
    defaultValue: 4,
    label: 'Seats per slot',
    help: 'rows of the running batch: how many requests decode together on one model slot',
    level: 'engine',
    flag: '--seats',
    parse: int,
    format: String,
  }),
  kvBudgetBytes: spec<number>({
    schema: intIn(1, 1024 * 1024 * MIB),
    defaultValue: 256 * MIB,
    label: 'K/V budget',
    help: 'memory (MB) for running sequences’ K/V plus cached context pages; when decode outgrows it the newest sequence is preempted',
    level: 'engine',
    flag: '--kv-budget-mb',
    parse: (text) => Math.round(Number(text) * MIB),
    format: (bytes) => String(bytes / MIB),
  }),
  pageSize: spec<number>({
    schema: intIn(1, 1024),
    defaultValue: 16,
    label: 'Context page size',
    help: 'tokens per context page; part of the layout revision, so a change drops every cached page',
    level: 'slots',
    flag: '--page-size',
    parse: int,
    format: String,
  }),
  prefillChunkTokens: spec<number | null>({
    schema: intIn(1, 65_536).nullable(),
    defaultValue: 256,
    label: 'Prefill chunk',
    help: 'prompt tokens per forward pass; long prompts are split so decode steps interleave (off: one pass)',
    level: 'engine',
    flag: '--prefill-chunk',
    parse: orNull('off', int),
    format: formatOr('off'),
  }),
  maxQueue: spec<number>({
    schema: intIn(0, 100_000),
    defaultValue: 64,
    label: 'Queue limit',
    help: 'requests allowed to wait; one more is rejected at once (HTTP 429) instead of timing out later',
    level: 'request',
    flag: '--queue-limit',
    parse: int,
    format: String,
  }),
  maxPromptTokens: spec<number>({
    schema: intIn(1, MAX_INPUT_TOKENS_BOUND),
    defaultValue: 4096,
    label: 'Input token limit',
    help: 'longest prompt accepted, in tokens after the chat template',
    level: 'request',
    flag: '--max-input-tokens',
    parse: int,
    format: String,
  }),
  maxOutputTokens: spec<number>({
    schema: intIn(1, MAX_OUTPUT_TOKENS_BOUND),
    defaultValue: 4096,
    label: 'Output token limit',
    help: 'most tokens one request may ask for (max_tokens above it is refused)',
    level: 'request',
    flag: '--max-output-tokens',
    parse: int,
    format: String,
  }),
  defaultMaxTokens: spec<number>({
    schema: intIn(1, MAX_OUTPUT_TOKENS_BOUND),
    defaultValue: 256,
    label: 'Default output tokens',
    help: 'output tokens for a request that names no max_tokens (at most the output limit)',
    level: 'request',
    flag: '--default-max-tokens',
    parse: int,
    format: String,
  }),
  defaultDeadlineMs: spec<number | null>({
    schema: intIn(1, MAX_DEADLINE_MS).nullable(),
    defaultValue: null,
    label: 'Default deadline',
    help: 'ms after arrival when a request that set no deadline is cut (finish reason `deadline`); off: none',
    level: 'request',
    flag: '--deadline-ms',
    parse: orNull('off', int),
    format: formatOr('off'),
  }),
  numThreads: spec<number | null>({
    schema: intIn(1, 256).nullable(),
    defaultValue: null,
    label: 'Threads per slot',
    help: 'ONNX Runtime threads of each slot’s session; auto: all cores but the one the main thread needs',
    level: 'slots',
    flag: '--threads',
    parse: orNull('auto', int),
    format: formatOr('auto'),
  }),
  defaultModel: spec<string | null>({
    schema: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\s:]+(:[^\s:]+)?$/, 'a model reference: name or name:variant')
      .nullable(),
    defaultValue: null,
    label: 'Model (and variant)',
    help: 'model reference for requests that name none: `name` (its default variant) or `name:variant`; auto: the first bundled model',
    level: 'request',
    flag: '--default-model',
    parse: orNull('auto', (text) => text),
    format: (value) => value ?? 'auto',
  }),
  executionProvider: spec<ExecutionProvider>({
    schema: z.enum(EXECUTION_PROVIDERS),
    defaultValue: 'cpu',
    label: 'Execution provider',
    help: 'where each slot’s session runs unless the slot has its own choice; one that cannot start here falls back to cpu with the reason on the slot card; a change rebuilds every slot',
    level: 'slots',
    flag: '--provider',
    parse: (text) => text,
    format: String,
  }),
};

/** A setting's name. */
export type SettingKey = keyof typeof SETTINGS;
/** Every setting's name, in declaration order (the panel's and the tables' order). */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
