import { z } from 'zod';
import { EXECUTION_PROVIDERS } from '../slot-worker/providers';
import type { ExecutionProvider } from '../slot-worker/providers';

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
  /** What the Settings panel calls it, in a local user's words ("Memory for conversations"). */
  label: string;
  /**
   * The engine's own name for it ("K/V budget"), the words docs and benches use: Expert shows it
   * beside the label as detail; null when the label already is that name.
   */
  term: string | null;
  help: string;
  level: ApplyLevel;
  /** Command-line flag (`--seats`), shared by `npm run serve` and the benches. */
  flag: string;
  /** Flag text → value (before the schema checks it); throws with what to write. */
  parse(text: string): unknown;
  /** Value → the text `parse` reads back (also what tables print). */
  format(value: T): string;
  /** How the Settings panel edits it: a number (with its unit), on/off, or a pick among what exists. */
  control: 'number' | 'switch' | 'model' | 'provider';
  /** The unit of the value as written (after `parse`'s scaling), or null. */
  unit: string | null;
  /** The word that stands for null (`off`, `auto`), when the setting can be null. */
  nullWord?: 'off' | 'auto';
  /** Value units per written unit (the K/V budget is written in MB, kept in bytes). */
  scale?: number;
}

const int = (text: string): number => {
  if (!/^-?\d+$/.test(text.trim())) throw new Error(`"${text}" is not a whole number`);
  return Number(text);
};
const orNull =
  (word: string, inner: (text: string) => unknown) =>
  (text: string): unknown =>
    text === word ? null : inner(text);
const onOff = (text: string): boolean => {
  if (text !== 'on' && text !== 'off') throw new Error(`"${text}" is neither on nor off`);
  return text === 'on';
};
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
    label: 'Answers at once per model',
    term: 'seats per slot',
    help: 'how many answers one model writes at the same time (more: more throughput, each a little slower)',
    control: 'number',
    unit: 'requests',
    level: 'engine',
    flag: '--seats',
    parse: int,
    format: String,
  }),
  kvBudgetBytes: spec<number>({
    schema: intIn(1, 1024 * 1024 * MIB),
    defaultValue: 256 * MIB,
    label: 'Memory for conversations',
    term: 'K/V budget',
    help: 'memory for the conversations being answered and the remembered context of recent ones; when full, the newest answer waits',
    control: 'number',
    unit: 'MB',
    scale: MIB,
    level: 'engine',
    flag: '--kv-budget-mb',
    parse: (text) => Math.round(Number(text) * MIB),
    format: (bytes) => String(bytes / MIB),
  }),
  diskPagesBudgetBytes: spec<number | null>({
    schema: intIn(0, 1024 * 1024 * MIB).nullable(),
    defaultValue: null,
    label: 'Remembered context on disk',
    term: 'disk page budget',
    help: 'disk space for context pages kept across restarts, so a long conversation answers fast again (auto: 5% of the free space, at most 2 GB; 0: nothing is kept on disk)',
    control: 'number',
    unit: 'MB',
    scale: MIB,
    nullWord: 'auto',
    level: 'engine',
    flag: '--disk-pages-mb',
    parse: orNull('auto', (text) => Math.round(Number(text) * MIB)),
    format: (bytes) => (bytes === null ? 'auto' : String(bytes / MIB)),
  }),
  pageSize: spec<number>({
    schema: intIn(1, 1024),
    defaultValue: 16,
    label: 'Context piece size',
    term: 'page size',
    help: 'the context is remembered in pieces of this many tokens; a change forgets every remembered context',
    control: 'number',
    unit: 'tokens',
    level: 'slots',
    flag: '--page-size',
    parse: int,
    format: String,
  }),
  prefillChunkTokens: spec<number | null>({
    schema: intIn(1, 65_536).nullable(),
    defaultValue: 256,
    label: 'Prompt reading step',
    term: 'prefill chunk',
    help: 'a long prompt is read in pieces of this many tokens so other answers keep flowing (off: all at once)',
    control: 'number',
    unit: 'tokens',
    nullWord: 'off',
    level: 'engine',
    flag: '--prefill-chunk',
    parse: orNull('off', int),
    format: formatOr('off'),
  }),
  maxQueue: spec<number>({
    schema: intIn(0, 100_000),
    defaultValue: 64,
    label: 'Queue limit',
    term: null,
    help: 'how many requests may wait for their turn; one more is refused at once instead of timing out later',
    control: 'number',
    unit: 'requests',
    level: 'request',
    flag: '--queue-limit',
    parse: int,
    format: String,
  }),
  maxPromptTokens: spec<number>({
    schema: intIn(1, MAX_INPUT_TOKENS_BOUND),
    defaultValue: 4096,
    label: 'Longest prompt',
    term: 'input token limit',
    help: 'the longest prompt accepted (the whole conversation as the model reads it)',
    control: 'number',
    unit: 'tokens',
    level: 'request',
    flag: '--max-input-tokens',
    parse: int,
    format: String,
  }),
  maxOutputTokens: spec<number>({
    schema: intIn(1, MAX_OUTPUT_TOKENS_BOUND),
    defaultValue: 4096,
    label: 'Longest answer',
    term: 'output token limit',
    help: 'the longest answer any request may ask for',
    control: 'number',
    unit: 'tokens',
    level: 'request',
    flag: '--max-output-tokens',
    parse: int,
    format: String,
  }),
  defaultMaxTokens: spec<number>({
    schema: intIn(1, MAX_OUTPUT_TOKENS_BOUND),
    defaultValue: 256,
    label: 'Default answer length',
    term: 'default max_tokens',
    help: 'how long an answer may get when the request does not say (at most the limit above)',
    control: 'number',
    unit: 'tokens',
    level: 'request',
    flag: '--default-max-tokens',
    parse: int,
    format: String,
  }),
  defaultDeadlineMs: spec<number | null>({
    schema: intIn(1, MAX_DEADLINE_MS).nullable(),
    defaultValue: null,
    label: 'Time limit for an answer',
    term: 'default deadline',
    help: 'an answer still running this long after it was asked is cut short (off: never)',
    control: 'number',
    unit: 'ms',
    nullWord: 'off',
    level: 'request',
    flag: '--deadline-ms',
    parse: orNull('off', int),
    format: formatOr('off'),
  }),
  remoteFirstByteMs: spec<number>({
    schema: intIn(1_000, MAX_DEADLINE_MS),
    defaultValue: 120_000,
    label: 'Remote engine start wait',
    term: 'remote first-byte limit',
    help: 'how long a remote engine may take to start answering (it may be loading a model) before that answer fails with this limit named',
    control: 'number',
    unit: 'ms',
    level: 'request',
    flag: '--remote-first-byte-ms',
    parse: int,
    format: String,
  }),
  numThreads: spec<number | null>({
    schema: intIn(1, 256).nullable(),
    defaultValue: null,
    label: 'Processor threads per model',
    term: 'threads per slot',
    help: 'processor threads each loaded model computes with (auto: all cores but one)',
    control: 'number',
    unit: 'threads',
    nullWord: 'auto',
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
    label: 'Default model',
    term: null,
    help: 'the model a new chat or an API request uses when it names none (auto: the bundled model)',
    control: 'model',
    unit: null,
    nullWord: 'auto',
    level: 'request',
    flag: '--default-model',
    parse: orNull('auto', (text) => text),
    format: (value) => value ?? 'auto',
  }),
  executionProvider: spec<ExecutionProvider>({
    schema: z.enum(EXECUTION_PROVIDERS),
    defaultValue: 'cpu',
    label: 'Hardware to run on',
    term: 'execution provider',
    help: 'the hardware models run on; one that cannot start here falls back to the CPU, and Slots says why',
    control: 'provider',
    unit: null,
    level: 'slots',
    flag: '--provider',
    parse: (text) => text,
    format: String,
  }),
  canFuseAtLoad: spec<boolean>({
    schema: z.boolean(),
    defaultValue: true,
    label: 'Rewrite models for speed',
    term: 'fuse graphs at load',
    help: 'rewrites a model once into a faster form of the same computation (checked against the original, then cached), so each word takes far fewer steps; off: every model runs as exported',
    control: 'switch',
    unit: null,
    level: 'slots',
    flag: '--fuse-at-load',
    parse: onOff,
    format: (isOn) => (isOn ? 'on' : 'off'),
  }),
  canSpinThreads: spec<boolean>({
    schema: z.boolean(),
    defaultValue: true,
    label: 'Keep threads ready while answering',
    term: 'thread spinning',
    help: 'with 2 or more threads, each waits for its next piece of work by spinning instead of sleeping while a model computes: faster tokens, but those cores stay busy during a step (they stop between steps and between answers); off is kinder to other programs on a busy computer',
    control: 'switch',
    unit: null,
    level: 'slots',
    flag: '--spin-threads',
    parse: onOff,
    format: (isOn) => (isOn ? 'on' : 'off'),
  }),
};

/** A setting's name. */
export type SettingKey = keyof typeof SETTINGS;
/** Every setting's name, in declaration order (the panel's and the tables' order). */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
