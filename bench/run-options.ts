import path from 'node:path';
import type { Slo } from '../src-main/telemetry/report/goodput';
import { BUNDLED_MODELS_DIR, DEFAULT_DATA_DIR } from '../src-main/cli/paths';

/**
 * Options the load and experiment benches both take, with the same defaults: how many warmup
 * requests, the prompt/output lengths, the seed, the SLO pair, the model and where runs are kept.
 */
export const SHARED_RUN_OPTIONS = {
  warmup: { type: 'string', default: '2' },
  'prompt-tokens': { type: 'string', default: 'uniform:32-256' },
  'output-tokens': { type: 'string', default: 'fixed:32' },
  seed: { type: 'string', default: '1' },
  'slo-ttft': { type: 'string' },
  'slo-itl': { type: 'string' },
  model: { type: 'string' },
  variant: { type: 'string' },
  'data-dir': { type: 'string' },
  'no-store': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const;

/** `--slo-ttft MS --slo-itl MS` as an SLO, or null when neither is given (callers check they go together). */
export function sloOf(ttftText: string | undefined, itlText: string | undefined): Slo | null {
  return ttftText ? { ttftMs: positive(ttftText, 'slo-ttft'), itlMs: positive(itlText!, 'slo-itl') } : null;
}

/** `--model DIR` resolved, or the bundled model's folder. */
export function modelDirOf(modelText: string | undefined): string {
  return path.resolve(modelText ?? path.join(BUNDLED_MODELS_DIR, 'ff-austen-mini'));
}

/** Where runs are stored: null with `--no-store`, else `--data-dir` or the default data folder. */
export function dataDirOf(v: { 'no-store': boolean; 'data-dir'?: string | undefined }): string | null {
  return v['no-store'] ? null : path.resolve(v['data-dir'] ?? DEFAULT_DATA_DIR);
}

/** A number above 0; throws a message naming `--name`. */
export function positive(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} "${text}": a number above 0`);
  return value;
}

/** An integer ≥ min; throws a message naming `--name`. */
export function integer(text: string, name: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} "${text}": an integer ≥ ${min}`);
  return value;
}
